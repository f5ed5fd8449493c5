// Every per-token cap holds when requests race for its last places on two replicas at once: 60
// requests, half to each replica, with every cap at 5, get exactly 5 through and 55 refusals with the
// cap's own Problem. Counted, then inserted, each replica saw room the other was filling.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { Agent } from "../support/agent.ts";
import { Replicas } from "../support/replicas.ts";

const CAP = 5;
const AT_ONCE = 60;

describe("two replicas, every cap at 5", () => {
  let r: Replicas;
  beforeAll(async () => {
    r = await Replicas.start(2, {
      env: {
        LOOPBACK_MAX_SESSIONS_PER_TOKEN: String(CAP),
        LOOPBACK_MAX_EVENT_TICKETS: String(CAP),
        LOOPBACK_MAX_UPLOAD_TICKETS: String(CAP),
        LOOPBACK_MAX_OPEN_ASKS_PER_TOKEN: String(CAP),
        // Calls return `pending` at once: the asks stay open, nobody waits.
        LOOPBACK_WAIT_BUDGET_S: "0.01",
      },
    });
  }, 60_000);
  afterAll(() => r.dispose());

  /** 60 requests at once, alternating between the replicas; the statuses they got. */
  const race = (send: (url: string, i: number) => Promise<number>) => Promise.all(Array.from({ length: AT_ONCE }, (_, i) => send(r.urlOf(i % 2), i)));
  const tally = (statuses: (number | string)[]) => Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length]));

  test("MCP sessions: 5 initialized, 55 refused with sessions.too_many", async () => {
    const token = await r.token("ada", { agent: true });
    const codes = await race(async (url, i) => {
      const res = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "initialize", params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "racer", version: "1" } } }),
      });
      if (res.status === 429) expect((await res.json()).code).toBe("sessions.too_many");
      else await res.body?.cancel();
      return res.status;
    });
    expect(tally(codes)).toEqual({ 200: CAP, 429: AT_ONCE - CAP });
  });

  test("event tickets: 5 issued, 55 refused with ticket.too_many", async () => {
    const token = await r.token("ada");
    const codes = await race(async (url) => {
      const answer = await r.person(token, url === r.urlOf(0) ? 0 : 1).api("POST", "/events/tickets");
      if (answer.status === 429) expect(answer.body.code).toBe("ticket.too_many");
      return answer.status;
    });
    expect(tally(codes)).toEqual({ 201: CAP, 429: AT_ONCE - CAP });
  });

  /** A fresh agent token with one session on each replica; 60 calls of `tool` at once; what each returned. */
  async function callsAtOnce(tool: string, args: (i: number) => Record<string, unknown>): Promise<string[]> {
    const token = await r.token("ada", { agent: true });
    const agents = [await r.agent(token, 0), await r.agent(token, 1)];
    const outcomes = await Promise.all(
      Array.from({ length: AT_ONCE }, async (_, i) => {
        const result = await agents[i % 2].call(tool, args(i));
        return result.isError ? (result.content[0] as { text: string }).text.split(":")[0] : "ok";
      }),
    );
    await Promise.all(agents.map((a: Agent) => a.close()));
    return outcomes;
  }

  test("upload tickets: 5 issued, 55 refused with upload.too_many", async () => {
    expect(tally(await callsAtOnce("get_upload_ticket", () => ({ contentType: "image/png" })))).toEqual({ ok: CAP, "upload.too_many": AT_ONCE - CAP });
  });

  test("open asks: 5 opened, 55 refused with asks.too_many", async () => {
    const question = (i: number) => ({ question: `Which, ${i}?`, options: [{ label: "A" }, { label: "B" }], project: "caps-at-once" });
    expect(tally(await callsAtOnce("ask_question", question))).toEqual({ ok: CAP, "asks.too_many": AT_ONCE - CAP });
  });
});
