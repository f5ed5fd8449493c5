import * as schemas from "@loopback/shared/generated/schemas";
import { parseShape } from "../../parse-shape.ts";
import type { BlockingTool } from "../tool.ts";

export const waitForReply: BlockingTool = {
  kind: "blocking",
  name: "wait_for_reply",
  title: "Keep waiting for the person's reply",
  description: [
    "Keep waiting for the person's reply on an ask, after a Loopback tool returned `pending` (it returns before clients time out, so waits can last as long as the person needs). Call it right away with the `askId` from that result; it returns at once if they replied meanwhile.",
    "It returns the same shapes as the tool that opened the ask: act on `reply` exactly as that tool's description says, or call `wait_for_reply` again on another `pending`. It also recovers a reply whose result was lost, for instance to a dropped connection.",
  ].join("\n\n"),
  resume: true,
  start: async ({ asks, caller }, args) => {
    const { askId } = parseShape(schemas.WaitInput, args, "input.invalid");
    await asks.get(caller, askId);
    return { askId };
  },
};
