import * as schemas from "@loopback/shared/generated/schemas";
import { parseShape } from "../../parse-shape.ts";
import type { InstantTool } from "../tool.ts";

export const getInboxLink: InstantTool = {
  kind: "instant",
  name: "get_inbox_link",
  title: "Link to the person's inbox",
  description:
    "Get the address of the person's Loopback inbox, or of one ask in it with `askId`: to hand them when they ask where to answer, or to mention alongside a message you print while you wait.",
  readOnly: true,
  run: async ({ asks, publicUrl, caller }, args) => {
    const { askId } = parseShape(schemas.InboxRequest, args, "input.invalid");
    if (askId) await asks.get(caller, askId);
    const base = `${publicUrl}/inbox/`;
    return { url: askId ? `${base}#/ask/${encodeURIComponent(askId)}` : base };
  },
};
