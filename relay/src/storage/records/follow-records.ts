// Which replica follows which ask, for `waiting` across replicas (asks/followers-elsewhere.ts). A
// follow is written without waiting for the disk: it describes live connections, which a restart
// ends anyway. A replica counts while it holds a connection to the database (the dialect asks the
// database), so one killed stops counting as soon as its connections close.
import { and, eq, inArray, notInArray } from "drizzle-orm";
import type { Dialect } from "../dialect.ts";
import type { FollowChange, FollowRecords } from "../store.ts";

export class SqlFollowRecords implements FollowRecords {
  constructor(
    private d: Dialect,
    private replica: string,
  ) {}

  set(askId: string, following: boolean, at: string): Promise<void> {
    const { t } = this.d;
    const change: FollowChange = { askId, replica: this.replica, following };
    return this.d.withoutWaitingForDisk(async (q) => {
      if (following) await q.insert(t.askFollowers).values({ askId, replica: this.replica, since: at }).onConflictDoNothing();
      else await q.delete(t.askFollowers).where(and(eq(t.askFollowers.askId, askId), eq(t.askFollowers.replica, this.replica)));
      await this.d.announceFollow(q, change);
    });
  }

  async following(replicas: string[]): Promise<{ askId: string; replica: string }[]> {
    if (!replicas.length) return [];
    const { db, t } = this.d;
    return db.select({ askId: t.askFollowers.askId, replica: t.askFollowers.replica }).from(t.askFollowers).where(inArray(t.askFollowers.replica, replicas));
  }

  alive(): Promise<string[]> {
    return this.d.liveReplicas();
  }

  async forgetAllBut(alive: string[]): Promise<void> {
    const { t } = this.d;
    await this.d.withoutWaitingForDisk((q) => q.delete(t.askFollowers).where(alive.length ? notInArray(t.askFollowers.replica, alive) : undefined));
  }

  async leave(): Promise<void> {
    const { t } = this.d;
    await this.d.withoutWaitingForDisk((q) => q.delete(t.askFollowers).where(eq(t.askFollowers.replica, this.replica)));
  }
}
