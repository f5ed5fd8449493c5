import { afterAll, beforeAll, expect, test } from "bun:test";
import { Agent, structured } from "./support/agent.ts";
import { Person } from "./support/person.ts";
import { RelayProcess } from "./support/relay-process.ts";

let relay: RelayProcess;
beforeAll(async () => {
  relay = await new RelayProcess().start();
});
afterAll(() => relay.dispose());

test("an agent's question reaches the person's socket and their answer returns from the tool call", async () => {
  const person = new Person(relay.url, await relay.token("ada"));
  const agent = await Agent.connect(relay.url, await relay.token("ada", { agent: true }));
  const socket = await person.socket();
  expect((await socket.next()).type).toBe("snapshot");
  const call = agent.call("ask_question", { question: "Which?", project: "demo", options: [{ label: "A" }, { label: "B" }] });
  const opened = await socket.next((f) => f.type === "ask.opened");
  const askId = (opened as any).ask.id;
  const { status } = await person.reply(askId, { outcome: "answered", selected: ["B"] });
  expect(status).toBe(200);
  expect(structured(await call)).toEqual({ askId, reply: { outcome: "answered", selected: ["B"] } });
  socket.close();
  await agent.close();
});
