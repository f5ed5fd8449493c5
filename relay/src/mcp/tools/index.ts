// Every tool Loopback serves, in the order a model reads them.
import type { Tool } from "../tool.ts";
import { answerBriefing } from "./answer-briefing.ts";
import { answerFollowUp } from "./answer-follow-up.ts";
import { askQuestion } from "./ask-question.ts";
import { getInboxLink } from "./get-inbox-link.ts";
import { getUploadTicket } from "./get-upload-ticket.ts";
import { requestApproval } from "./request-approval.ts";
import { requestReview } from "./request-review.ts";
import { sendBriefing } from "./send-briefing.ts";
import { waitForReply } from "./wait-for-reply.ts";

export const TOOLS: Tool[] = [askQuestion, requestReview, sendBriefing, answerBriefing, answerFollowUp, waitForReply, getUploadTicket, getInboxLink, requestApproval];

export const TOOLS_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));
