// Every reason Loopback refuses something, in one table: a stable code (clients and agents key on it),
// the HTTP status the contract gives it, and the words a person or a model reads. REST answers with
// the contract's `Problem`; MCP tools answer with an `isError` result in the same words.
import type { Problem } from "./generated/types.ts";

export const PROBLEMS = {
  // who is asking
  "auth.missing": { status: 401, message: "Send a token as `Authorization: Bearer <token>`." },
  "auth.invalid": { status: 401, message: "That token is not known here, or it was revoked." },
  "auth.person_required": { status: 401, message: "Only a person's token may do this; an agent's token cannot answer for its person." },
  "auth.rate_limited": { status: 429, message: "Too many refused tokens from this address: wait a minute before trying another. A valid token is still let in." },
  "ticket.invalid": { status: 401, message: "That event ticket is unknown, used or expired: ask for a new one." },
  "ticket.too_many": { status: 429, message: "This token holds as many unused event tickets as it may: open the socket with one, or wait a minute for them to expire." },
  "origin.refused": { status: 403, message: "Requests from this origin or host are refused." },
  "metrics.refused": { status: 403, message: "Metrics are served to this machine's own addresses, or to a scraper sending LOOPBACK_METRICS_TOKEN as `Authorization: Bearer <token>`." },
  "sessions.too_many": { status: 429, message: "This token has too many MCP sessions in use (each with a stream open or a call waiting): close some (DELETE /mcp)." },
  "calls.too_many": { status: 429, message: "This token has too many calls waiting on the person at once: wait for some to return." },
  "asks.too_many": { status: 429, message: "This token has as many open asks as it may: wait for the person to close some." },
  "asks.space_full": { status: 429, message: "This space has as many open asks as it may: wait for the person to close some." },
  "sockets.too_many": { status: 429, message: "This token has as many event sockets open as it may: close one first." },
  "call.unknown": { status: 404, message: "There is no such waiting call to resume: call the tool again with the same input, or wait_for_reply with its askId." },
  reload: { status: 409, message: "This relay writes an older revision than your client: it was rolled back. Reload to get the matching client." },

  // what was sent
  "route.not_found": { status: 404, message: "There is nothing at this address." },
  "method.not_allowed": { status: 405, message: "This address does not take that method." },
  "body.malformed": { status: 422, message: "The body is not valid JSON." },
  "body.invalid": { status: 422, message: "The body does not have the shape the contract gives it." },
  "body.too_large": { status: 413, message: "The body is larger than 256 KiB (a reply: 256 KiB besides its line comments, which the contract bounds)." },
  "query.invalid": { status: 422, message: "A query parameter is out of range or malformed." },
  "input.invalid": { status: 422, message: "The input does not have the shape the tool takes." },
  "tool.unknown": { status: 404, message: "There is no such tool." },
  "input.too_large": { status: 413, message: "All of it together may be at most 256 KiB: show the part that matters, or split it." },

  // asks
  "ask.not_found": { status: 404, message: "There is no such ask in your space." },
  "ask.closed": { status: 409, message: "The ask is closed: nothing more can be added to it." },
  "ask.not_your_turn": { status: 409, message: "It is not your move on this ask." },
  "ask.revises_unknown": { status: 422, message: "`revises` must name a review in your space." },
  "approval.unanswered": { status: 409, message: "The relay stopped before the person decided: ask again with the same input to keep waiting for their decision." },

  // a person's reply
  "reply.wrong_kind": { status: 422, message: "That reply does not fit this kind of ask." },
  "reply.empty": { status: 422, message: "An answer needs a choice or words of your own." },
  "reply.unknown_choice": { status: 422, message: "Pick only among the choices offered." },
  "reply.duplicate_choice": { status: 422, message: "Each choice may be picked once." },
  "reply.one_choice": { status: 422, message: "This question takes one choice." },
  "reply.unknown_point": { status: 422, message: "That point does not exist on this briefing." },
  "reply.point_twice": { status: 422, message: "Name each point at most once." },
  "reply.point_resolved": { status: 422, message: "That point is already resolved." },
  "reply.point_empty": { status: 422, message: "Each point you name needs words or to be marked resolved." },
  "comment.unknown_block": { status: 422, message: "A comment names a content block the review does not have." },
  "comment.unknown_file": { status: 422, message: "A comment names a file the diff does not have." },
  "comment.unknown_line": { status: 422, message: "A comment names a line that does not exist in its block." },
  "comment.misplaced": { status: 422, message: "A comment's anchor does not fit its block: a diff line takes `file`, `side` and `line`, a code line `line`, a markdown or image block none." },
  "reply.nothing_to_answer": { status: 422, message: "Resolve every point, or write on at least one you leave open, so the agent has something to answer." },

  // an agent's answer
  "answer.wrong_kind": { status: 422, message: "Only a briefing takes answers on points; answer a question asked back with answer_follow_up." },
  "answer.unknown_point": { status: 422, message: "That point does not exist on this briefing." },
  "answer.point_twice": { status: 422, message: "Answer each point at most once." },
  "answer.point_resolved": { status: 422, message: "That point is resolved: it needs no answer." },
  "answer.missing_point": { status: 422, message: "Answer every point the person wrote on without resolving it." },
  "answer.too_deep": { status: 422, message: "Points go at most three levels deep (such as 3.1.2)." },
  "answer.no_follow_up": { status: 422, message: "The person did not ask anything back on this ask." },
  "briefing.too_many_points": { status: 422, message: "A briefing has at most fifty points, counted straight through every section." },

  // uploads and files
  "upload.not_found": { status: 404, message: "There is no such upload ticket." },
  "upload.used": { status: 410, message: "This upload ticket was already used: ask for a new one." },
  "upload.expired": { status: 410, message: "This upload ticket expired: ask for a new one." },
  "upload.too_many": { status: 429, message: "This token holds as many unused upload tickets as it may: upload to the ones you have, or wait for them to expire." },
  "upload.too_large": { status: 413, message: "The image is larger than the ticket's maxBytes." },
  "upload.over_quota": { status: 413, message: "Storing this image would pass the relay's quota of image bytes: asks that are answered keep theirs, so wait, or ask the relay's operator." },
  "upload.wrong_type": { status: 422, message: "The Content-Type is not the one the ticket was issued for." },
  "upload.not_image": { status: 422, message: "The bytes are not an image of the ticket's type." },
  "file.not_found": { status: 404, message: "There is no such file in your space." },
  "image.unknown_upload": { status: 422, message: "An image block names an upload that does not exist in your space: upload it first with get_upload_ticket." },

  // Web Push
  "push.device_not_found": { status: 404, message: "There is no such device of yours." },
  "push.endpoint_invalid": { status: 422, message: "The endpoint must be an https URL of a push service." },
  "push.keys_invalid": { status: 422, message: "`keys.p256dh` must be a P-256 public key and `keys.auth` a 16-byte secret, each as base64url." },
  "push.time_zone_unknown": { status: 422, message: "`quietHours.timeZone` must be an IANA time zone, such as Europe/Berlin." },
  "push.endpoint_refused": { status: 422, message: "The relay does not push to this endpoint: it must be a push service on the public internet, or one the relay's operator lists." },
  "push.too_many_devices": { status: 429, message: "You have as many devices as the relay keeps for a person: remove one you no longer use." },

  // the relay's own state
  "database.unreachable": { status: 503, message: "The relay cannot reach its database right now; nothing was changed. Try again in a few seconds." },
  "storage.full": { status: 503, message: "The relay's disk is full, so it cannot store anything right now; nothing was changed. Try again once its operator has freed space." },

  internal: { status: 500, message: "Something went wrong on the relay; nothing was changed." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

/** A refusal the code can throw and every adapter knows how to answer. */
export class LoopbackProblem extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  constructor(code: ProblemCode, detail?: string) {
    super(detail ? `${PROBLEMS[code].message} ${detail}` : PROBLEMS[code].message);
    this.code = code;
    this.status = PROBLEMS[code].status;
  }
  toProblem(): Problem {
    return { code: this.code, message: this.message };
  }
}

export const problem = (code: ProblemCode, detail?: string) => new LoopbackProblem(code, detail);
