// A token may hold only so many unused event tickets and upload tickets at once (configurable, with a
// 429 of its own code past that), and tickets that expired unused are swept away: from memory for
// event tickets, from the database for upload tickets. In-process on a clock the test moves, on both
// stores, which keep the tickets and their deadlines.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_EVENT_TICKET_TTL_S, DEFAULT_SWEEP_EVERY_S, DEFAULT_UPLOAD_TTL_S } from "../../relay/src/config.ts";
import { Agent } from "../support/agent.ts";
import { EventSocket, Person } from "../support/person.ts";
import { assertResponse } from "../support/contract.ts";
import { BOTH_STORES, inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";
import { until } from "../support/scene.ts";
import { PNG, put, uploadTicket } from "../relay/upload-image.ts";

describe.each(BOTH_STORES)("on %s", (store) => {
  let s: InProcessScene;
  beforeAll(async () => {
    s = await inProcessScene({ store, client: { name: "test-agent", version: "1.0.0" }, env: { LOOPBACK_MAX_EVENT_TICKETS: "3", LOOPBACK_MAX_UPLOAD_TICKETS: "2" } });
  }, 30_000);
  afterAll(() => s.dispose());

  const ticket = (person: Person) => person.api("POST", "/events/tickets");

  test("past its cap of unused event tickets a token gets 429 ticket.too_many; using or outliving one frees its place, and other tokens are not held back", async () => {
    const held = [];
    for (let i = 0; i < 3; i++) held.push((await ticket(s.person)).body.ticket as string);
    const refused = await ticket(s.person);
    expect([refused.status, refused.body.code]).toEqual([429, "ticket.too_many"]);
    assertResponse("3", "POST", "/events/tickets", 429, refused.body);
    expect(refused.body.message).toContain("LOOPBACK_MAX_EVENT_TICKETS");

    const other = new Person(s.url, await s.token());
    expect((await ticket(other)).status).toBe(201);

    const socket = await EventSocket.open(s.url, ["loopback.v1", `loopback.ticket.${held[0]}`]);
    await socket.next((f) => f.type === "snapshot");
    socket.close();
    expect((await ticket(s.person)).status).toBe(201);
    expect((await ticket(s.person)).status).toBe(429);

    // Once they expire, they no longer count against it.
    await s.clock.advance(DEFAULT_EVENT_TICKET_TTL_S * 1000 + 100);
    for (let i = 0; i < 3; i++) expect((await ticket(s.person)).status).toBe(201);
  });

  test("past its cap of unused upload tickets an agent's token gets an isError upload.too_many; uploading to one frees its place", async () => {
    const first = await uploadTicket(s.agent);
    await uploadTicket(s.agent);
    const refused = await s.agent.call("get_upload_ticket", { contentType: "image/png" });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("upload.too_many");

    expect((await put(first, PNG)).status).toBe(201);
    expect((await uploadTicket(s.agent)).uploadId).toMatch(/^upl_/);

    const otherAgent = await Agent.connect(s.url, await s.token({ agent: true }));
    expect((await uploadTicket(otherAgent)).uploadId).toMatch(/^upl_/);
    await otherAgent.close();
  });

  test("upload tickets that expired unused are deleted from the database; a stored image stays through its grace", async () => {
    // The earlier test's unused tickets have expired, and a sweep has run since.
    await s.clock.advance((DEFAULT_UPLOAD_TTL_S + DEFAULT_SWEEP_EVERY_S) * 1000);
    const fresh = await uploadTicket(s.agent);
    expect((await put(fresh, PNG)).status).toBe(201);
    const unused = await uploadTicket(s.agent);

    const rows = () => s.rows<{ id: string; stored: unknown }>("SELECT id, stored_at IS NOT NULL AS stored FROM uploads");
    await until(async () => (await rows()).every((r) => r.stored || r.id === unused.uploadId), "only stored images and the live ticket are left", 5000);
    const left = await rows();
    // This one; the earlier test's, which no ask named, went once its grace was over.
    expect(left.filter((r) => r.stored).length).toBe(1);
    expect(left.filter((r) => !r.stored).map((r) => r.id)).toEqual([unused.uploadId]);
  });

  test("a ticket past its time is 410 upload.expired", async () => {
    // A relay that sweeps daily: the expired ticket is still there to be refused, not swept away meanwhile.
    const unswept = await inProcessScene({ store, client: { name: "test-agent", version: "1.0.0" }, env: { LOOPBACK_SWEEP_EVERY_S: String(24 * 60 * 60) } });
    try {
      const ticket = await uploadTicket(unswept.agent);
      // No later than its time from the relay's now (which steps a millisecond with every stamp).
      expect(Date.parse(ticket.expiresAt)).toBeLessThanOrEqual(unswept.clock.nowMs() + DEFAULT_UPLOAD_TTL_S * 1000);
      await unswept.clock.advance(DEFAULT_UPLOAD_TTL_S * 1000 + 100);
      const res = await put(ticket, PNG);
      expect([res.status, res.body.code]).toEqual([410, "upload.expired"]);
    } finally {
      await unswept.dispose();
    }
  });
});
