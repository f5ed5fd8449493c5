import * as schemas from "@loopback/shared/generated/schemas";
import { parseShape } from "../../parse-shape.ts";
import type { InstantTool } from "../tool.ts";

export const getUploadTicket: InstantTool = {
  kind: "instant",
  name: "get_upload_ticket",
  title: "Get somewhere to upload an image",
  description:
    "Get a one-time address to upload an image (png, jpeg, webp or gif) that you want to show in a review or briefing. Run the returned `command` with `FILE` replaced by the image's path (or PUT the bytes to `uploadUrl` with the same `Content-Type`), then put `{type:\"image\", uploadId}` in the content you send. The ticket works once, within fifteen minutes, up to `maxBytes`.",
  run: ({ uploads, caller }, args) => {
    const { contentType } = parseShape(schemas.UploadRequest, args, "input.invalid");
    return uploads.issueTicket(caller, contentType);
  },
};
