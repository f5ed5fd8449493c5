// Uploads an image the way agents do: a ticket from the `get_upload_ticket` tool, then a plain PUT
// to its URL with no credentials.
import type { UploadTicket } from "@loopback/shared/generated/types";
import { structured, type Agent } from "../support/agent.ts";
import { Person, type ApiAnswer } from "../support/person.ts";

/** A real 1×1 PNG. */
export const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

export async function uploadTicket(agent: Agent, contentType = "image/png"): Promise<UploadTicket> {
  return structured<UploadTicket>(await agent.call("get_upload_ticket", { contentType }));
}

/** PUTs `body` to a ticket's URL, checking the answer against the contract. */
export function put(ticket: UploadTicket | string, body: BodyInit, contentType = "image/png"): Promise<ApiAnswer> {
  const url = new URL(typeof ticket === "string" ? ticket : ticket.uploadUrl);
  return new Person(url.origin, "").api("PUT", url.pathname.replace(/^\/api\/v1/, ""), { raw: body, token: null, headers: { "Content-Type": contentType } });
}

export async function uploadImage(agent: Agent, bytes: BodyInit = PNG, contentType = "image/png"): Promise<string> {
  const ticket = await uploadTicket(agent, contentType);
  const res = await put(ticket, bytes, contentType);
  if (res.status !== 201) throw new Error(`upload refused: ${res.status} ${JSON.stringify(res.body)}`);
  return ticket.uploadId;
}
