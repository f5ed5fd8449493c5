// The relay's log: LogTape loggers under the category "loopback", one line per record, as text for a
// person or as JSON lines for a log stack (`LOOPBACK_LOG_FORMAT=json`). Warnings and errors go to
// stderr, the rest to stdout. Messages name only plain values; an `error` property is printed with
// its stack (text) or as an object (JSON). Nothing logged may hold a token or any other secret:
// callers pass addresses, codes and ids, never headers or bodies.
import { configureSync, getLogger, withFilter, type LogLevel, type LogRecord, type Logger } from "@logtape/logtape";

export type LogFormat = "text" | "json";
/** The levels `LOOPBACK_LOG_LEVEL` takes, as people write them. */
export const LOG_LEVELS = { debug: "debug", info: "info", warn: "warning", error: "error" } as const satisfies Record<string, LogLevel>;
export type LogLevelName = keyof typeof LOG_LEVELS;

/** A logger for one area of the relay (`http`, `auth`, `push`, `storage`…). */
export const log = (area: string): Logger => getLogger(["loopback", area]);

const LEVEL_WORDS: Record<LogLevel, string> = { trace: "TRACE", debug: "DEBUG", info: "INFO", warning: "WARN", error: "ERROR", fatal: "FATAL" };

/** `2026-12-02T03:53:36.527Z WARN auth: refused a token from 127.0.0.1`, and an error's stack below it. */
function text(record: LogRecord): string {
  const error = record.properties.error;
  const stack = error instanceof Error ? `\n${error.stack ?? error.message}` : "";
  return `${new Date(record.timestamp).toISOString()} ${LEVEL_WORDS[record.level]} ${record.category.slice(1).join(".")}: ${rendered(record)}${stack}\n`;
}

/** One object per line: when, how loud, where, the message as the text line has it, and its properties beside it. */
function json(record: LogRecord): string {
  const properties = Object.fromEntries(Object.entries(record.properties).map(([key, value]) => [key, value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value]));
  const head = { "@timestamp": new Date(record.timestamp).toISOString(), level: LEVEL_WORDS[record.level], logger: record.category.join("."), message: rendered(record) };
  return `${JSON.stringify({ ...properties, ...head })}\n`;
}

const rendered = (record: LogRecord) => record.message.map((part, i) => (i % 2 === 0 ? String(part) : plain(part))).join("");
const plain = (value: unknown): string => (typeof value === "string" ? value : value instanceof Error ? value.message : JSON.stringify(value));

/** Who hears of every error logged with an `error` property, whatever the level written (the metrics count them). */
export const errorListeners = new Set<(error: unknown) => void>();

/** Sets the process's log up; a later call replaces it (tests start several relays in one process). */
export function configureLog(level: LogLevelName, format: LogFormat): void {
  const formatter = format === "json" ? json : text;
  const loud = (record: LogRecord) => record.level === "warning" || record.level === "error" || record.level === "fatal";
  const lowest = LOG_LEVELS[level];
  const write = (record: LogRecord) => void (loud(record) ? process.stderr : process.stdout).write(formatter(record));
  configureSync({
    reset: true,
    sinks: {
      out: withFilter(write, lowest),
      errors: (record) => {
        if (record.properties.error !== undefined) for (const listener of errorListeners) listener(record.properties.error);
      },
    },
    loggers: [
      { category: "loopback", lowestLevel: lowest === "error" ? "warning" : lowest, sinks: ["out", "errors"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["out"] },
    ],
  });
}
