// What the model reads about Loopback as a whole, once, when it connects.
export const INSTRUCTIONS = `Loopback puts what you need from your person in front of them — in their browser side panel or web inbox — and hands their reply back to you. Use it whenever something is theirs to decide instead of guessing, and before anything hard to undo.

- ask_question: a decision, a preference, a missing fact; with 2–6 options when answers are predictable.
- request_review: show code, a diff, copy or a screenshot and get approved / changes_requested.
- send_briefing: findings, options or a plan as numbered points they can reply on one by one; continue with answer_briefing.
- answer_follow_up: when they asked you something back (a follow_up reply).
- wait_for_reply: when a tool returned \`pending\` (it returns before client timeouts cut the wait): call it with the same askId to keep waiting. Nothing is ever lost.
- get_upload_ticket: upload an image to show in a review or briefing.
- get_inbox_link: the address where the person answers.

Every blocking tool waits for the person, however long they take.
Pass \`project\` to ask_question, request_review and send_briefing: the name of your repository's root folder, so the person sees which project asks.`;
