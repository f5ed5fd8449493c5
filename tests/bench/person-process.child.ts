// The person's side of the benchmark's rounds, in a process of its own: their inbox socket and their
// reply, as a browser is a process apart from the agent: nothing of the agent's event loop or HTTP
// client is the person's too. Times are absolute (`timeOrigin + now()`), so the two processes' marks compare.
import { EventSocket, Person } from "../support/person.ts";
import { absoluteNow, type FromPerson, type ToPerson } from "./person-process.ts";

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
  // Told a moment later, so the message does not reach the agent's process while it reads its result.
  setTimeout(() => post({ type: "replied", askId: opened.ask.id, seenAt, sentAt, okAt, status: res.status }), 10);
}

const post = (m: FromPerson) => process.send!(m);

process.on("message", async (m: ToPerson) => {
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
});
