// Who a request acts for, once its token was let in (auth/gate.ts): the token and ticket records build
// it from their rows, so it sits with them, below everything that asks for it.
import type { Actor } from "@loopback/shared/generated/types";

export type TokenKind = "person" | "agent";

/** A caller the gate let in. Asks it raises are `raisedBy` its person, whichever kind of token it holds. */
export interface Caller {
  spaceId: string;
  spaceName: string;
  person: Actor;
  tokenKind: TokenKind;
  /** The SHA-256 of the token it came with: sessions and limits are bound to it. */
  tokenHash: string;
  /** The token it presented, as `token list` names it: per-token caps and revocation key on it. */
  tokenId: string;
}
