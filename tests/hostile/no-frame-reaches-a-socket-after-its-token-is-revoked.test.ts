// Revoking a token stops what its inbox socket is sent at the revoking commit, not at the next timed
// check: while an agent keeps opening asks, `token revoke` (the real CLI, another process) returns,
// and no ask opened from then on reaches the revoked socket, which closes with 4401. The timed check
// is set to 30 s here, so only the check before sending can pass this.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Ask } from "@loopback/shared/generated/types";
import { Agent } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { newProject, scene, until, type BareScene } from "../support/scene.ts";

let s: BareScene;
beforeAll(async () => {
  s = await scene({ client: false, env: { LOOPBACK_WAIT_BUDGET_S: "0.01", LOOPBACK_REVOCATION_CHECK_S: "30" } });
}, 60_000);
afterAll(() => s.dispose());

test("no ask opened after `token revoke` returns reaches the revoked token's socket; it closes with 4401", async () => {
  const created = s.relay.cli(["token", "create", "--person", "ada"]);
  const token = created.stdout.trimEnd().split("\n").at(-1)!;
  const tokenId = /\b(tok_[0-9a-z]+)\b/.exec(created.stdout)![1]!;
  const socket = await new Person(s.relay.url, token).socket();
  await socket.next((f) => f.type === "snapshot");

  const agent = await Agent.connect(s.relay.url, s.agentToken);
  const project = newProject();
  let asking = true;
  let n = 0;
  const opened: string[] = [];
  const loop = (async () => {
    while (asking) {
      const result = await agent.call("ask_question", { question: `Which, ${n++}?`, options: [{ label: "A" }, { label: "B" }], project });
      opened.push(JSON.parse((result.content[0] as { text: string }).text).askId);
    }
  })();
  await socket.next((f) => f.type === "ask.opened" && f.ask.project === project);

  expect(s.relay.cli(["token", "revoke", tokenId]).exitCode).toBe(0);
  const revokedBy = new Date().toISOString();
  const before = opened.length;
  await until(() => opened.length >= before + 20, "the agent opens asks after the revocation", 20_000);
  asking = false;
  await loop;
  await agent.close();

  await until(() => socket.closed, "the revoked socket closes");
  expect(socket.closedWith?.code).toBe(4401);
  const late = socket.frames.filter((f) => f.type === "ask.opened" && (f.ask as Ask).createdAt > revokedBy);
  expect(late.map((f) => (f as { ask: Ask }).ask.id)).toEqual([]);
  // The asks were opened all the same: ada's other token sees them.
  const seen = (await s.person.snapshot()).open.filter((a) => a.project === project && a.createdAt > revokedBy);
  expect(seen.length).toBeGreaterThanOrEqual(20);
}, 60_000);
