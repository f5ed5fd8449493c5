// The inbox answers, and only a person's own token may answer: an agent's token would sign in (the
// relay knows it) and fail only at Send. Whoami does not say a token's kind, so signing in also asks
// for something only a person's token may read — the person's push devices, refused to an agent's
// token with `auth.person_required` (a relay older than push answers 404, and is let be).
import { RelayError } from "./relay-error";
import type { RelayClient } from "./relay-client";

/** Where a person's token comes from, in each way the relay is run. */
export const TOKEN_COMMAND = {
  clone: "npm run loopback -- token create --person NAME",
  package: "npx loopback-relay token create --person NAME",
  binary: "./loopback token create --person NAME",
} as const;

export const AGENT_TOKEN_REFUSED =
  "This is an agent's token (lba_…, for MCP): it cannot answer. Sign in with your own token (lbp_…): the relay's first start printed it as “Your token (for the inbox)”, and token create without --agent makes another.";

/** Why this token may not sign in to the inbox, or null when it may. */
export async function notAPersonToken(client: RelayClient, signal?: AbortSignal): Promise<string | null> {
  try {
    await client.pushDevices(signal);
    return null;
  } catch (e) {
    return e instanceof RelayError && e.problem?.code === "auth.person_required" ? AGENT_TOKEN_REFUSED : null;
  }
}
