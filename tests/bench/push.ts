// How soon the person's phone could know: from an agent's ask_question call to the push request
// reaching the push service, decrypted and its VAPID signature checked. A real relay with one device
// registered, and our push service (tests/support/push-receiver.ts) over TLS on loopback. The floor
// is the bench's "ask → ask.opened on the inbox socket" row: the rest is encrypting, signing and one
// TLS request.
//
// `bun tests/bench/push.ts [runs]` prints the result; `benchPush` is what bench.ts calls.
import { pct } from "./stats.ts";
import { Agent } from "../support/agent.ts";
import { PushReceiver } from "../support/push-receiver.ts";
import { RelayProcess } from "../support/relay-process.ts";

export interface PushBench {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  runs: number;
}


export async function benchPush({ runs = 200 } = {}): Promise<PushBench> {
  let token = "";
  const push = await PushReceiver.start(async () => (await (await fetch(`${relay.url}/api/v1/push/key`, { headers: { Authorization: `Bearer ${token}` } })).json()).publicKey);
  const relay = await new RelayProcess({ env: { NODE_EXTRA_CA_CERTS: push.caFile, LOOPBACK_PUSH_HOSTS: push.host } }).start();
  try {
    token = await relay.token("bench");
    const sub = push.subscribe();
    const added = await fetch(`${relay.url}/api/v1/push/devices`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ endpoint: sub.endpoint, keys: sub.keys, name: "bench" }),
    });
    if (added.status !== 201) throw new Error(`could not add the device: ${added.status}`);
    const agent = await Agent.connect(relay.url, await relay.token("bench", { agent: true }), "bench-agent", "1.0");
    const times: number[] = [];
    const warmup = Math.min(10, runs);
    for (let i = 0; i < runs + warmup; i++) {
      const t0 = performance.now();
      const call = agent.call("ask_question", { question: `Push ${i}?`, project: "bench", options: [{ label: "A" }, { label: "B" }] });
      const got = (await push.waitFor(sub.id, i + 1)).at(-1)!;
      if (i >= warmup) times.push(got.at - t0);
      // Answered, so each run starts with nothing waiting.
      const dismissed = await fetch(`${relay.url}/api/v1/asks/${got.notice.askId}/reply`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ outcome: "dismissed" }),
      });
      if (dismissed.status !== 200) throw new Error(`could not dismiss: ${dismissed.status}`);
      await call;
    }
    await agent.close();
    return { p50: pct(times, 50), p90: pct(times, 90), p99: pct(times, 99), max: Math.max(...times), runs };
  } finally {
    await relay.dispose();
    push.stop();
  }
}

if (import.meta.main) {
  const r = await benchPush({ runs: Number(process.argv[2] ?? 200) });
  console.log(`agent's call → push at the push service: p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms (${r.runs} runs)`);
}
