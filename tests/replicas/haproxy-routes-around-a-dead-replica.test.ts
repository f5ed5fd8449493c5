// docs/haproxy.cfg, as the README shows it, in front of replicas on one database: requests are
// spread over every replica; a replica killed with SIGKILL leaves rotation within about half a
// second and no request sent meanwhile is answered with a 5xx (a refused connection is retried on
// another replica); it comes back once it answers /healthz again. The event socket and a blocking
// call's SSE stream pass through it and outlast a quiet stretch longer than the relay's idle timeout;
// the replicas see the client's address, not HAProxy's, for the failure limiter.
import { afterAll, beforeAll, expect, test } from "bun:test";
import http from "node:http";
import { MAX_FAILURES_PER_WINDOW } from "../../relay/src/limits/failure-limiter.ts";
import { Replicas } from "../support/replicas.ts";
import { askWhen, newProject, openedAsk, running } from "../support/scene.ts";
import { questionInput, toolReply } from "../mcp/mcp-scene.ts";

const COUNT = 3;
/** The replicas' idle timeout (LOOPBACK_IDLE_TIMEOUT_S), short so a quiet stretch past it is short too. */
const IDLE_S = 2;
let r: Replicas;
let personToken: string;
let agentToken: string;
beforeAll(async () => {
  r = await Replicas.start(COUNT, { env: { LOOPBACK_IDLE_TIMEOUT_S: String(IDLE_S) } });
  personToken = await r.token("ada");
  agentToken = await r.token("ada", { agent: true });
}, 60_000);
afterAll(() => r.dispose());

const whoami = () => fetch(`${r.url}/api/v1/whoami`, { headers: { Authorization: `Bearer ${personToken}` } }).then((res) => res.status);

test("requests through HAProxy are spread over every replica", async () => {
  const before = await r.balancer.admin("show stat");
  for (let i = 0; i < 30; i++) expect(await whoami()).toBe(200);
  const served = (csv: string) => Object.fromEntries(csv.trim().split("\n").slice(1).map((l) => l.split(",")).filter((c) => c[0] === "relays" && c[1] !== "BACKEND").map((c) => [c[1], Number(c[7])]));
  const [was, now] = [served(before), served(await r.balancer.admin("show stat"))];
  // \`balance leastconn\` sends one request after another round the replicas, but a server connection
  // still being released when the next request comes tips it to another one (CI saw 11 on r1): each
  // replica serves its share, not exactly a third. One replica taking them all would serve 30, the others none.
  const shares = Object.fromEntries(Array.from({ length: COUNT }, (_, i) => [r.nameOf(i), now[r.nameOf(i)] - was[r.nameOf(i)]]));
  expect(Object.values(shares).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(30);
  for (const [replica, served] of Object.entries(shares)) expect({ replica, servedItsShare: served >= 5 && served <= 15 }).toEqual({ replica, servedItsShare: true });
});

test("a replica killed with SIGKILL leaves rotation, no request meanwhile gets a 5xx, and it comes back when restarted", async () => {
  const statuses: number[] = [];
  let hammering = true;
  const hammer = (async () => {
    while (hammering) statuses.push(await whoami());
  })();
  await Bun.sleep(100);
  const outMs = await r.kill9(1);
  await Bun.sleep(300);
  hammering = false;
  await hammer;
  console.log(`HAProxy took ${Math.round(outMs)} ms to take the killed replica out; ${statuses.length} requests meanwhile`);
  expect(outMs).toBeLessThan(1_000);
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  await r.restart(1);
  expect(await r.balancer.statuses()).toEqual({ r1: "UP", r2: "UP", r3: "UP" });
}, 30_000);

test("the event socket and a blocking call's stream pass through HAProxy and outlast a quiet stretch past the relay's idle timeout", async () => {
  const person = r.person(personToken, "balancer");
  const socket = await person.socket();
  await socket.next((f) => f.type === "snapshot");
  const agent = await r.agent(agentToken, "balancer");
  const project = newProject();
  const call = running(agent.call("ask_question", questionInput(project)));
  const ask = await openedAsk(person, project, call);
  expect((await socket.next((f) => f.type === "ask.opened" && f.ask.id === ask.id)).type).toBe("ask.opened");
  // Past the idle timeout that closes a quiet connection, with no progress sent (the relay's is every 10 s by default; none yet):
  // the relay lifts it for an authenticated stream, and HAProxy's own timeouts are minutes.
  await Bun.sleep(IDLE_S * 1000 + 1_500);
  expect(call.settled).toBe(false);
  expect(socket.closed).toBe(false);
  await askWhen(person, ask.id, (a) => a.status === "awaiting_human");
  expect((await person.reply(ask.id, { outcome: "answered", selected: ["Redis"] })).status).toBe(200);
  expect(toolReply(await call)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["Redis"] } });
  await socket.next((f) => f.type === "ask.updated" && f.ask.id === ask.id && f.ask.status === "closed");
  socket.close();
  await agent.close();
}, 30_000);

/**
 * GET /api/v1/whoami through HAProxy from `from` (a loopback address of this machine), as another client
 * would, each on a connection of its own. HAProxy ("http-reuse safe") may send a later request of a
 * kept-alive connection over an idle replica connection, and when the replica closes that one as the
 * request arrives (its 2-s idle timeout here) HAProxy closes the client's silently for the client to
 * retry, as browsers do; node:http does not retry, and failed the test with "socket hang up".
 */
function whoamiFrom(from: string, token: string, forwardedFor?: string): Promise<number> {
  const { port } = new URL(r.url);
  const headers = { Authorization: `Bearer ${token}`, ...(forwardedFor && { "X-Forwarded-For": forwardedFor }) };
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: "/api/v1/whoami", localAddress: from, headers, agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      })
      .on("error", reject);
  });
}

test("refused tokens are counted per client across the replicas, from HAProxy's X-Forwarded-For, which a client cannot forge", async () => {
  // A guesser that names a new address of its own in X-Forwarded-For each time, its guesses spread
  // over every replica: 20 refused (the limit), and the next is told to back off.
  const guesses: number[] = [];
  for (let i = 0; i < MAX_FAILURES_PER_WINDOW + 1; i++) guesses.push(await whoamiFrom("127.0.0.3", "lbp_not-a-token", `203.0.113.${i}`));
  expect(guesses).toEqual([...Array(MAX_FAILURES_PER_WINDOW).fill(401), 429]);
  // Another client behind the same HAProxy is not limited by the guesser's count, and the guesser's valid token still works.
  expect(await whoamiFrom("127.0.0.4", "lbp_not-a-token")).toBe(401);
  expect(await whoamiFrom("127.0.0.3", personToken)).toBe(200);
});
