// The words several tools share, so every tool tells the model the same thing the same way.
export const PROJECT_WORDS =
  "`project` must be the name of the folder at the root of your repository (the last part of `git rev-parse --show-toplevel`), or of the working directory outside one: it is how the person tells your work from other agents'.";

export const WAIT_WORDS =
  "The call waits until the person replies, however long that takes. If it returns `pending` instead of `reply`, the person has not answered yet and nothing is lost: call `wait_for_reply` with the same `askId` right away to keep waiting.";

/** For the tools that open an ask: the agent may never have learnt its id. */
export const ASK_AGAIN_WORDS =
  "If the call fails or is cut off before it returns, call this tool again with exactly the same arguments: it picks up the same ask, and a reply given meanwhile comes back at once.";

/** For the tools that answer on an ask: the agent knows its id. */
export const RESUME_WORDS = "If the call fails or is cut off before it returns, call `wait_for_reply` with the same `askId`: your answer was kept, and their reply comes back there.";
