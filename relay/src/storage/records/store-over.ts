// Every record kind over one dialect: the whole store but for listening and closing, which differ.
import type { Dialect } from "../dialect.ts";
import type { Store } from "../store.ts";
import { SqlAskRecords } from "./ask-records.ts";
import { SqlCallRecords } from "./call-records.ts";
import { SqlFailureCounts } from "./failure-counters.ts";
import { SqlFollowRecords } from "./follow-records.ts";
import { SqlPushRecords } from "./push-records.ts";
import { SqlSessionRecords } from "./session-records.ts";
import { SqlTaskRecords } from "./task-records.ts";
import { SqlTicketRecords } from "./ticket-records.ts";
import { SqlTokenRecords } from "./token-records.ts";
import { SqlUploadRecords } from "./upload-records.ts";
import { SqlUpkeepRecords } from "./upkeep-records.ts";

export function storeOver(d: Dialect, replica: string, rest: Pick<Store, "close" | "tokensVersion">): Store {
  return {
    kind: d.kind,
    replica,
    asks: new SqlAskRecords(d, replica),
    tokens: new SqlTokenRecords(d),
    uploads: new SqlUploadRecords(d),
    sessions: new SqlSessionRecords(d),
    calls: new SqlCallRecords(d),
    tasks: new SqlTaskRecords(d),
    tickets: new SqlTicketRecords(d),
    failures: new SqlFailureCounts(d),
    push: new SqlPushRecords(d),
    follows: new SqlFollowRecords(d, replica),
    upkeep: new SqlUpkeepRecords(d),
    ...rest,
  };
}
