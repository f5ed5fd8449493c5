// What most tests against a real relay share: the relay, the person "ada" answering through the API,
// her agent over the official SDK client, and ways to wait for an ask to stand as a test expects.
import { expect } from "bun:test";
import type { Ask } from "@loopback/shared/generated/types";
import { Agent } from "./agent.ts";
import { Person } from "./person.ts";
import { RelayProcess } from "./relay-process.ts";

export interface SceneOptions {
  /** Extra environment for the relay, such as `LOOPBACK_WAIT_BUDGET_S`. */
  env?: Record<string, string>;
  /** The space ada's tokens are minted in; the relay's default one unless given. */
  space?: string;
  /** How the agent introduces itself over MCP (the Agent's defaults unless given), or `false` to connect none. */
  client?: Client | false;
  /** How many times the agent resumes a dropped call (the SDK's 2 unless given): see `Agent`. */
  resumes?: number;
}

type Client = { name: string; version: string };

export interface Scene {
  relay: RelayProcess;
  person: Person;
  agent: Agent;
  agentToken: string;
  dispose(): Promise<void>;
}

/** A scene made with `client: false`: the test connects its agents itself. */
export type BareScene = Omit<Scene, "agent">;

/** A relay with the person "ada" and, unless `client` is `false`, her agent connected. */
export function scene(opts: SceneOptions & { client: false }): Promise<BareScene>;
export function scene(opts?: SceneOptions & { client?: Client }): Promise<Scene>;
export async function scene(opts: SceneOptions = {}): Promise<BareScene & { agent?: Agent }> {
  const relay = await new RelayProcess({ env: opts.env, firstPerson: "ada" }).start();
  const person = new Person(relay.url, await relay.token("ada", { space: opts.space }));
  const agentToken = await relay.token("ada", { space: opts.space, agent: true });
  const client = opts.client;
  const agent = client === false ? undefined : await Agent.connect(relay.url, agentToken, client?.name, client?.version, opts.resumes);
  return {
    relay,
    person,
    agent,
    agentToken,
    async dispose() {
      await agent?.close().catch(() => {});
      const log = relay.log;
      await relay.dispose();
      assertNoInternalErrors(log);
    },
  };
}

/** A relay that answered anything as an internal error failed, whatever the tests saw. */
export function assertNoInternalErrors(log: string): void {
  if (log.includes("internal error")) throw new Error(`the relay logged an internal error:\n${log}`);
}

let projects = 0;
/** A project name no other ask of the run has, to find an ask by. */
export const newProject = () => `project-${++projects}-${crypto.randomUUID().slice(0, 6)}`;

/** A call left running: it is marked handled, so a test may end without awaiting it. */
export function running<T>(call: Promise<T>): Promise<T> & { settled: boolean } {
  const tracked = call as Promise<T> & { settled: boolean };
  tracked.settled = false;
  call.then(
    () => (tracked.settled = true),
    () => (tracked.settled = true),
  );
  return tracked;
}

/** Waits until `check` gives something, looking every `everyMs`, or fails saying `what`. */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 5000, everyMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await Bun.sleep(everyMs);
  }
}

/** The open ask of `project`, once the call that opens it (a `running` one, if given) has. */
export async function openedAsk(person: Person, project: string, call?: Promise<unknown> & { settled: boolean }): Promise<Ask> {
  const found = await until(async () => {
    const ask = (await person.snapshot()).open.find((a) => a.project === project);
    if (!ask && call?.settled) {
      const result = await call.catch((e) => String(e));
      throw new Error(`the call for ${project} returned without opening an ask: ${JSON.stringify(result)}`);
    }
    return ask;
  }, `an ask of ${project} is open`);
  // A reader of revision 5 lists summaries: the ask itself is read by its id.
  return "prompt" in found ? found : readAsk(person, (found as { id: string }).id);
}

export async function readAsk(person: Person, askId: string): Promise<Ask> {
  const res = await person.api<Ask>("GET", `/asks/${askId}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** The ask, once it stands as `matches` says. */
export async function askWhen(person: Person, askId: string, matches: (ask: Ask) => boolean, what = "it matches", timeoutMs = 5000): Promise<Ask> {
  return until(
    async () => {
      const ask = await readAsk(person, askId);
      return matches(ask) ? ask : undefined;
    },
    `ask ${askId}: ${what}`,
    timeoutMs,
  );
}
