import type { QuestionInput } from "@loopback/shared/generated/types";
import type { BlockingTool } from "../tool.ts";
import { PROJECT_WORDS, WAIT_WORDS, ASK_AGAIN_WORDS } from "./words.ts";

export const askQuestion: BlockingTool = {
  kind: "blocking",
  name: "ask_question",
  title: "Ask the person a question",
  description: [
    "Ask the person a question and wait for their answer. Use it whenever a decision is theirs to make, or when you would otherwise guess: a choice between approaches, an unclear requirement, a name, a trade-off, permission for something risky. Asking costs them a few seconds; a wrong guess costs them much more.",
    "Offer 2–6 `options` (short labels, with a `description` when the label is not enough) when the answers are predictable; set `multiple` when several may be picked. The person may always answer in their own words instead of, or as well as, picking. Put what they need to decide in `context` (markdown).",
    WAIT_WORDS,
    ASK_AGAIN_WORDS,
    "The reply is one of: `answered` (`selected` holds the labels picked, `text` their own words: act on them); `follow_up` (they asked you something back in `question`: answer with `answer_follow_up`, which then waits for their answer); `dismissed` (they declined: do not ask the same again; carry on with your best judgement or stop).",
    PROJECT_WORDS,
  ].join("\n\n"),
  start: ({ asks, caller, client, call }, args) => asks.open(caller, { kind: "question", input: args as QuestionInput }, client, call),
};
