// Several relays on one PostgreSQL database behind a real HAProxy, as a team would run them: one
// private PostgreSQL (tests/support/postgres.ts), N relay processes (`loopback serve`, each on its
// own port and data directory, all with one LOOPBACK_DATABASE_URL), and HAProxy running
// docs/haproxy.cfg in front. Tests talk to a replica directly to know which one serves them, or to
// the balancer as agents and inboxes do. Everything is torn down by `dispose`, and by the process's
// exit when a test fails before it.
import { afterAll, beforeAll } from "bun:test";
import { Agent } from "./agent.ts";
import { HaProxy } from "./haproxy.ts";
import { Person } from "./person.ts";
import { PostgresServer } from "./postgres.ts";
import { emptyDatabase, freePort, RelayProcess } from "./relay-process.ts";
import { assertNoInternalErrors } from "./scene.ts";
import { TcpProxy } from "./tcp-proxy.ts";

export interface ReplicasOptions {
  /** Extra environment for every replica, such as `LOOPBACK_STREAM_RETRY_S`. */
  env?: Record<string, string>;
  /**
   * `sqlite` gives each replica a SQLite file of its own: not a valid replica setup (they share
   * nothing), only a way to exercise HAProxy, health checks and the scene before the relay runs on
   * PostgreSQL. `postgres` (the default) is the real thing.
   */
  store?: "postgres" | "sqlite";
  /** The replicas reach PostgreSQL through a TCP proxy the test can cut (`r.proxy`), as a network fault would. */
  throughProxy?: boolean;
  /**
   * A PostgreSQL server of the test's own (`r.postgres`), for a test that stops or kills it.
   * Otherwise the replicas share a new, empty database on the run's server when `tests/run.ts`
   * started one: starting a server takes a second and an initdb.
   */
  ownServer?: boolean;
}

/** The address HAProxy connects to the replicas from, which they trust for X-Forwarded-For. */
const BALANCER_SOURCE = "127.0.0.2";

export class Replicas {
  private constructor(
    readonly relays: RelayProcess[],
    readonly balancer: HaProxy,
    readonly postgres: PostgresServer | undefined,
    readonly databaseUrl: string | undefined,
    readonly proxy: TcpProxy | undefined,
  ) {}

  /** Starts PostgreSQL, `count` replicas on one database, and HAProxy in front of them. */
  static async start(count: number, opts: ReplicasOptions = {}): Promise<Replicas> {
    const store = opts.store ?? "postgres";
    const shared = store === "postgres" && !opts.ownServer ? process.env.LOOPBACK_TEST_PG : undefined;
    const postgres = store === "postgres" && !shared ? await new PostgresServer().start() : undefined;
    let relays: RelayProcess[] = [];
    let balancer: HaProxy | undefined;
    let proxy: TcpProxy | undefined;
    try {
      const admin = shared ?? postgres?.url("postgres");
      let databaseUrl = admin && (await emptyDatabase(admin));
      if (opts.throughProxy && databaseUrl) {
        const port = Number(new URL(databaseUrl).port);
        proxy = await new TcpProxy({ host: "127.0.0.1", port }).start();
        databaseUrl = databaseUrl.replace(`:${port}/`, `:${proxy.port}/`);
      }
      const balancerPort = await freePort();
      const env = {
        ...(databaseUrl && { LOOPBACK_DATABASE_URL: databaseUrl }),
        LOOPBACK_TRUSTED_PROXIES: BALANCER_SOURCE,
        // Upload and inbox links point at the balancer, as in production.
        LOOPBACK_PUBLIC_URL: `http://127.0.0.1:${balancerPort}`,
        ...opts.env,
      };
      relays = Array.from({ length: count }, () => new RelayProcess({ env, firstPerson: "ada" }));
      // The first one alone: it migrates the empty database and makes the first person's tokens,
      // which replicas racing on an empty database would each make.
      await relays[0].start();
      await Promise.all(relays.slice(1).map((r) => r.start()));
      // A port found free can be taken before HAProxy binds it (other tests start servers too): another.
      for (let tries = 0; ; tries++) {
        balancer = new HaProxy(tries ? await freePort() : balancerPort, relays.map((r, i) => ({ name: name(i), port: r.port })), BALANCER_SOURCE);
        try {
          await balancer.start();
          break;
        } catch (e) {
          await balancer.stop().catch(() => {});
          if (tries >= 3 || !String(e).includes("Address already in use")) throw e;
        }
      }
      const replicas = new Replicas(relays, balancer, postgres, databaseUrl, proxy);
      for (let i = 0; i < count; i++) await balancer.until(name(i), "UP");
      return replicas;
    } catch (e) {
      await Promise.allSettled(relays.map((r) => r.dispose()));
      await balancer?.stop();
      await proxy?.stop();
      postgres?.stop();
      throw e;
    }
  }

  /** The balancer's URL: where agents and inboxes connect. */
  get url(): string {
    return this.balancer.url;
  }

  /** Replica `i`'s own URL, past the balancer. */
  urlOf(i: number): string {
    return this.relays[i].url;
  }

  /** HAProxy's name for replica `i`. */
  nameOf(i: number): string {
    return name(i);
  }

  /** Mints a token with the real CLI (on the shared database, so every replica knows it). */
  token(person: string, opts: { agent?: boolean; space?: string } = {}): Promise<string> {
    return this.relays[0].token(person, opts);
  }

  /** Runs the real CLI on replica `at`'s host: it works on the shared database, whichever replica. */
  cli(args: string[], at = 0) {
    return this.relays[at].cli(args);
  }

  /** `person`'s token as a Person on replica `at` (a number), or on the balancer (`"balancer"`). */
  person(token: string, at: number | "balancer"): Person {
    return new Person(at === "balancer" ? this.url : this.urlOf(at), token);
  }

  /** An agent connected over the official SDK client to replica `at`, or to the balancer. */
  agent(token: string, at: number | "balancer", client = "test-agent"): Promise<Agent> {
    return Agent.connect(at === "balancer" ? this.url : this.urlOf(at), token, client, "1.0.0");
  }

  /** Kills replica `i` with SIGKILL, as a crash would, and waits until HAProxy has taken it out of rotation. */
  async kill9(i: number): Promise<number> {
    await this.relays[i].kill9();
    return this.balancer.until(name(i), "DOWN");
  }

  /** Starts replica `i` again on its port and waits until HAProxy has it back in rotation. */
  async restart(i: number): Promise<void> {
    await this.relays[i].start();
    await this.balancer.until(name(i), "UP");
  }

  /** Stops every replica, HAProxy and PostgreSQL; fails if a replica logged an internal error. */
  async dispose(): Promise<void> {
    const logs = this.relays.map((r) => r.log);
    await Promise.allSettled(this.relays.map((r) => r.dispose()));
    await this.balancer.stop();
    await this.proxy?.stop();
    this.postgres?.stop();
    for (const log of logs) assertNoInternalErrors(log);
  }
}

const name = (i: number) => `r${i + 1}`;

/**
 * Inside a `describe`: `count` replicas started before its tests, with ada's inbox and agent tokens,
 * handed to `use`, and stopped after them.
 */
export function withReplicas(count: number, use: (started: { r: Replicas; personToken: string; agentToken: string }) => void): void {
  let r: Replicas | undefined;
  beforeAll(async () => {
    r = await Replicas.start(count);
    use({ r, personToken: await r.token("ada"), agentToken: await r.token("ada", { agent: true }) });
  }, 60_000);
  afterAll(() => r?.dispose());
}
