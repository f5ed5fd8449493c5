// The relay listens with SO_REUSEPORT so a planned restart's next process can listen beside it. A
// second relay someone starts on the same port by mistake (another data directory or database, the
// same user) must not take half the connections: it refuses to start and says why, on either store.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Person } from "../support/person.ts";
import { freshDatabase, RELAY_COMMAND, RelayProcess, TEST_STORE } from "../support/relay-process.ts";

let first: RelayProcess;
let token: string;
beforeAll(async () => {
  first = await new RelayProcess().start();
  token = await first.token("ada");
}, 30_000);
afterAll(() => first.stop());

test("a second relay on a running relay's port refuses to start, says why, and the first still answers", async () => {
  const second = new RelayProcess();
  const database = TEST_STORE === "postgres" ? { LOOPBACK_DATABASE_URL: await freshDatabase() } : {};
  const proc = Bun.spawn([...RELAY_COMMAND, "serve"], {
    env: { ...process.env, LOOPBACK_DATA: second.dataDir, LOOPBACK_HOST: "127.0.0.1", LOOPBACK_PORT: String(first.port), LOOPBACK_FIRST_PERSON: "first", LOOPBACK_WEB_BUILD: "off", ...database },
    stdout: "pipe",
    stderr: "pipe",
  });
  const exited = await Promise.race([proc.exited, Bun.sleep(10_000).then(() => "still running")]);
  if (exited === "still running") proc.kill("SIGKILL");
  expect(exited).toBe(2);
  expect(await new Response(proc.stderr).text()).toContain(`Port ${first.port} on 127.0.0.1 is in use`);
  // Every request still reaches the first relay, which knows the token it minted.
  const ada = new Person(first.url, token);
  for (let i = 0; i < 20; i++) expect((await ada.api("GET", "/whoami")).status).toBe(200);
}, 30_000);
