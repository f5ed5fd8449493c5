// `waiting` across replicas: which asks a call or task follows on some other replica. Each replica
// writes its own flips (an ask it now follows, or no longer does) to the store, which tells the others;
// each keeps what it heard in memory, so reading `waiting` costs no query. Every CHECK_MS it asks the
// database which replicas still hold a connection: one that is gone (killed, cut off) is forgotten
// with what it followed, and its agents' calls, resumed on the replicas left, follow again there.
import type { FollowChange, FollowRecords } from "../storage/store.ts";
import { isDatabaseAway } from "../storage/database-reach.ts";
import { log } from "../logging/log.ts";

export const CHECK_MS = 1_000;

export class FollowersElsewhere {
  #byReplica = new Map<string, Set<string>>();
  /** How many other replicas follow each ask. */
  #replicasOf = new Map<string, number>();
  /** Each ask's flips are written in the order they happened. */
  #writes = new Map<string, Promise<void>>();
  #timer?: ReturnType<typeof setInterval>;

  constructor(
    private records: FollowRecords,
    private replica: string,
    /** An ask's `waiting` elsewhere may have changed: publish it again. */
    private onFlip: (askId: string) => void,
  ) {}

  has(askId: string): boolean {
    return this.#replicasOf.has(askId);
  }

  /** Reads who follows what on the replicas alive now, then keeps checking which are. */
  async start(): Promise<void> {
    await this.reload();
    this.#timer = setInterval(() => void this.check().catch((e) => isDatabaseAway(e) || log("replicas").warn("could not check which replicas are alive", { error: e })), CHECK_MS);
    this.#timer.unref?.();
  }

  /** This replica began or stopped following an ask: the store and the other replicas are told. */
  mine(askId: string, following: boolean): void {
    const previous = this.#writes.get(askId) ?? Promise.resolve();
    const next = previous
      .then(() => this.records.set(askId, following, new Date().toISOString()))
      .catch((e) => log("replicas").warn("could not record who follows {askId}", { askId, error: e }))
      .finally(() => {
        if (this.#writes.get(askId) === next) this.#writes.delete(askId);
      });
    this.#writes.set(askId, next);
  }

  /** Another replica's flip, as the store told it; `quiet` when the caller publishes the ask itself. */
  heard(change: FollowChange, quiet = false): void {
    if (change.replica === this.replica) return;
    if (change.following) this.#add(change.replica, change.askId, quiet);
    else this.#remove(change.replica, change.askId);
  }

  /** Reads everything again: notifications may have been missed (the listener reconnected). */
  async reload(): Promise<void> {
    const alive = (await this.records.alive()).filter((r) => r !== this.replica);
    const now = new Map<string, Set<string>>();
    for (const { askId, replica } of await this.records.following(alive)) {
      (now.get(replica) ?? now.set(replica, new Set()).get(replica)!).add(askId);
    }
    for (const [replica, asks] of [...this.#byReplica]) for (const askId of [...asks]) if (!now.get(replica)?.has(askId)) this.#remove(replica, askId);
    for (const [replica, asks] of now) for (const askId of asks) this.#add(replica, askId);
  }

  /** Forgets replicas that no longer hold a connection, with what they followed. */
  private async check(): Promise<void> {
    const alive = await this.records.alive();
    const living = new Set(alive);
    const gone = [...this.#byReplica.keys()].filter((r) => !living.has(r));
    for (const replica of gone) for (const askId of [...this.#byReplica.get(replica)!]) this.#remove(replica, askId);
    if (gone.length) await this.records.forgetAllBut(alive);
  }

  #add(replica: string, askId: string, quiet = false): void {
    const asks = this.#byReplica.get(replica) ?? this.#byReplica.set(replica, new Set()).get(replica)!;
    if (asks.has(askId)) return;
    asks.add(askId);
    const n = (this.#replicasOf.get(askId) ?? 0) + 1;
    this.#replicasOf.set(askId, n);
    if (n === 1 && !quiet) this.onFlip(askId);
  }

  #remove(replica: string, askId: string): void {
    const asks = this.#byReplica.get(replica);
    if (!asks?.delete(askId)) return;
    if (!asks.size) this.#byReplica.delete(replica);
    const n = (this.#replicasOf.get(askId) ?? 1) - 1;
    if (n > 0) this.#replicasOf.set(askId, n);
    else {
      this.#replicasOf.delete(askId);
      this.onFlip(askId);
    }
  }

  /** This replica stops: its flips land, then what it followed leaves the store. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.allSettled([...this.#writes.values()]);
    await this.records.leave().catch(() => {});
  }
}
