// `waiting` says whether an agent follows the ask, whichever replica its call is held on: two relays
// on one PostgreSQL database, the agent's call on A, the person's inbox on B. A replica killed with
// its calls in hand stops counting once its connections to the database are gone (checked every
// CHECK_MS), so no ask shows an agent waiting that no replica holds.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Ask } from "@loopback/shared/generated/types";
import { CHECK_MS } from "../../relay/src/asks/followers-elsewhere.ts";
import { Agent, structured } from "../support/agent.ts";
import { Person, type EventSocket } from "../support/person.ts";
import { freshDatabase, RelayProcess } from "../support/relay-process.ts";
import { newProject, running, until } from "../support/scene.ts";

let a: RelayProcess;
let b: RelayProcess;
let agentToken: string;
let personToken: string;

beforeAll(async () => {
  const url = await freshDatabase();
  a = await new RelayProcess({ env: { LOOPBACK_DATABASE_URL: url, LOOPBACK_WAIT_BUDGET_S: "0" } }).start();
  b = await new RelayProcess({ env: { LOOPBACK_DATABASE_URL: url, LOOPBACK_WAIT_BUDGET_S: "0" } }).start();
  agentToken = await a.token("ada", { agent: true });
  personToken = await b.token("ada");
});
afterAll(async () => {
  await a.dispose();
  await b.dispose();
});

const readOn = async (relay: RelayProcess, askId: string) => (await new Person(relay.url, personToken).api<Ask>("GET", `/asks/${askId}`)).body;
const frame = (socket: EventSocket, askId: string, waiting: boolean) => socket.next((f: any) => f.type.startsWith("ask.") && f.ask.id === askId && f.ask.waiting === waiting, 3 * CHECK_MS + 2_000);

test("a call held on one replica shows the ask waiting on another, until it returns", async () => {
  const person = new Person(b.url, personToken);
  const socket = await person.socket();
  const agent = await Agent.connect(a.url, agentToken);
  const project = newProject();
  const call = running(agent.call("ask_question", { question: "Which?", project }));
  const opened = (await socket.next((f: any) => f.type === "ask.opened" && f.ask.project === project)) as { ask: Ask };
  expect(opened.ask.waiting).toBe(true);
  await until(async () => (await readOn(b, opened.ask.id)).waiting, "B reads the ask as waiting");

  expect((await person.reply(opened.ask.id, { outcome: "answered", selected: [], text: "This one." })).status).toBe(200);
  expect(structured(await call).reply.text).toBe("This one.");
  await frame(socket, opened.ask.id, false);
  expect((await readOn(b, opened.ask.id)).waiting).toBe(false);
  socket.close();
  await agent.close();
});

test("a replica killed with a call in hand stops counting at once: the ask no longer shows an agent waiting", async () => {
  const person = new Person(b.url, personToken);
  const agent = await Agent.connect(a.url, agentToken);
  const project = newProject();
  running(agent.call("ask_question", { question: "Still there?", project }));
  const ask = await until(async () => (await person.snapshot()).open.find((x) => x.project === project && x.waiting), "B shows the ask waiting");
  const socket = await person.socket();
  await a.kill9();
  // The inbox on B is told, and a read there agrees, within a check or two.
  await frame(socket, ask.id, false);
  expect((await readOn(b, ask.id)).waiting).toBe(false);
  socket.close();
  await agent.close().catch(() => {});
  await a.start();
}, 20_000);
