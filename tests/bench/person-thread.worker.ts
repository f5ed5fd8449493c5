// The person's side of the benchmark's rounds, on a thread of its own: their inbox socket and their
// reply, as a browser is a process apart from the agent. On one event loop the agent's client would
// wait for the inbox's frames to be parsed before it read its own result, and the rounds would time
// that queue. Times are absolute (`timeOrigin + now()`), so the two threads' marks compare.
import { EventSocket, Person } from "../support/person.ts";
import { absoluteNow, type FromPerson, type ToPerson } from "./person-thread.ts";

declare const self: Worker;

let person: Person;
let socket: EventSocket;

async function answer(reply: unknown, afterMs: number) {
  const opened = (await socket.next((f) => f.type === "ask.opened", 30_000)) as { ask: { id: string } };
  const seenAt = absoluteNow();
  if (afterMs) await Bun.sleep(afterMs);
  const sentAt = absoluteNow();
  const res = await fetch(`${person.baseUrl}/api/v1/asks/${opened.ask.id}/reply`, {
    method: "POST",
    headers: { Authorization: `Bearer ${person.token}`, "Content-Type": "application/json" },
    body: JSON.stringify(reply),
  });
  await res.arrayBuffer();
  const okAt = absoluteNow();
  // Drain this ask's updates so the next round waits only for its own frames.
  socket.frames.length = 0;
  // Told a moment later, so the message does not land on the agent's thread while it reads its result.
  setTimeout(() => post({ type: "replied", askId: opened.ask.id, seenAt, sentAt, okAt, status: res.status }), 10);
}

const post = (m: FromPerson) => self.postMessage(m);

self.onmessage = async (event: MessageEvent<ToPerson>) => {
  const m = event.data;
  if (m.type === "start") {
    person = new Person(m.url, m.token);
    socket = await person.socket(false);
    await socket.next((f) => f.type === "snapshot");
    post({ type: "ready" });
  } else if (m.type === "arm") {
    post({ type: "armed" });
    await answer(m.reply, m.afterMs);
  } else if (m.type === "stop") {
    socket.close();
    post({ type: "stopped" });
  }
};
