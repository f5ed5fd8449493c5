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
  // Each method is wrapped once, here, on an object that reads everything else through from
  // `records`: a call makes nothing but its own promise.
  const guarded = Object.create(records) as T;
  for (let layer: object | null = records; layer && layer !== Object.prototype; layer = Object.getPrototypeOf(layer)) {
    for (const name of Reflect.ownKeys(layer)) {
      const method = Object.getOwnPropertyDescriptor(layer, name)?.value;
      if (name === "constructor" || typeof method !== "function" || Object.hasOwn(guarded, name)) continue;
      Object.defineProperty(guarded, name, {
        writable: true,
        configurable: true,
        value: (...args: unknown[]) => {
          const refused = guard.refuse?.();
          if (refused !== undefined) return Promise.reject(refused);
          let result: unknown;
          try {
            result = method.apply(records, args);
          } catch (e) {
            throw guard.seen(e);
          }
          return result instanceof Promise ? result.catch((e) => Promise.reject(guard.seen(e))) : result;
        },
      });
    }
  }
  return guarded;
}
