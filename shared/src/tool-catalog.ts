// Which contract shapes each MCP tool takes and gives. The names are part of the product: agents'
// configs and prompts name them. `bun run gen` emits a JSON Schema for each shape named here.
export const TOOL_SHAPES = {
  ask_question: { input: "QuestionInput", output: "ToolReply" },
  request_review: { input: "ReviewInput", output: "ToolReply" },
  send_briefing: { input: "BriefingInput", output: "ToolReply" },
  answer_briefing: { input: "BriefingAnswerInput", output: "ToolReply" },
  answer_follow_up: { input: "FollowUpInput", output: "ToolReply" },
  wait_for_reply: { input: "WaitInput", output: "ToolReply" },
  request_approval: { input: "ApprovalInput", output: "PermissionDecision" },
  get_upload_ticket: { input: "UploadRequest", output: "UploadTicket" },
  get_inbox_link: { input: "InboxRequest", output: "InboxLink" },
} as const;

export type ToolName = keyof typeof TOOL_SHAPES;
