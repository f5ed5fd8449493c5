// `/readyz`: whether this relay can store what it is sent, for a monitor. Unlike `/healthz` (which a
// load balancer polls, and which never touches storage) it answers `503` with the Problem that writes
// get meanwhile: `storage.full` when the SQLite file's disk is full, `database.unreachable` when
// PostgreSQL cannot be reached. It reads the relay's own state, not the database.
import { problem } from "@loopback/shared/problems";
import type { Store } from "../storage/store.ts";
import { problemResponse } from "./problem-response.ts";

export function readiness(store: Store, headers: Record<string, string>): Response {
  if (store.space?.full) return problemResponse(problem("storage.full"), headers);
  if (store.reach && !store.reach.reachable) return problemResponse(problem("database.unreachable"), headers);
  return new Response(null, { status: 204, headers });
}
