// A store's records with every call passed through a guard: refused before it runs when the guard
// says so, and its errors (thrown or rejected) turned into what the guard makes of them. How the
// PostgreSQL store says the database is away, and the SQLite store that its disk is full.
export interface RecordsGuard {
  /** Why to refuse a call before it runs, if it must be. */
  refuse?(): unknown;
  /** What an error of a call becomes. */
  seen(error: unknown): unknown;
}

export function guardRecords<T extends object>(records: T, guard: RecordsGuard): T {
  return new Proxy(records, {
    get: (target, prop, receiver) => {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const refused = guard.refuse?.();
        if (refused !== undefined) return Promise.reject(refused);
        let result: unknown;
        try {
          result = value.apply(target, args);
        } catch (e) {
          throw guard.seen(e);
        }
        return result instanceof Promise ? result.catch((e) => Promise.reject(guard.seen(e))) : result;
      };
    },
  });
}
