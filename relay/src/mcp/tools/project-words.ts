// The words every tool that opens an ask uses about `project`: the person reads many projects at once.
export const PROJECT_WORDS =
  "`project` must be the name of the folder at the root of your repository (the last part of `git rev-parse --show-toplevel`), or of the working directory outside one: it is how the person tells your work from other agents'.";

export const WAIT_WORDS =
  "The call waits until the person replies, however long that takes. If it returns `pending` instead of `reply`, the person has not answered yet and nothing is lost: call `wait_for_reply` with the same `askId` right away to keep waiting.";
