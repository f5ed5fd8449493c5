// Asks as agents really send them, from three projects: a 4-option question, a review with markdown
// (a task list among it), a long-lined code block and a 3-file diff, and a two-section briefing.
// The accessibility and layout tests open each of these, so what they check is what a person sees.
import type { Ask, ToolReply } from "@loopback/shared/generated/types";
import { running } from "../../support/scene.ts";
import type { TestAgent } from "./agent";

export const TITLES = {
  question: "Which database should the cache use?",
  review: "Cache reads through SQLite",
  briefing: "Why the nightly import is slow",
} as const;

export type Kind = keyof typeof TITLES;

const QUESTION = {
  question: TITLES.question,
  options: [
    { label: "Redis", description: "A new service to run" },
    { label: "SQLite", description: "Already a dependency" },
    { label: "Memory" },
    { label: "None", description: "Keep reading the database" },
  ],
  project: "inventory-service",
};

const CODE = [
  'import { Database } from "bun:sqlite";',
  "",
  "/** Reads an entry, or null when it expired. */",
  "export function read(db: Database, key: string): string | null {",
  // 116 characters, within the 120 that most style guides allow.
  '  const row = db.query("SELECT value, expires FROM cache WHERE key = ? AND ns = ?").get(key, NS) as CacheRow | null;',
  "  // Expired rows are left for the sweeper, so a read never writes.",
  "  return row && row.expires > Date.now() ? row.value : null;",
  "}",
].join("\n");

const fileDiff = (name: string, before: string, after: string) =>
  [
    `diff --git a/${name} b/${name}`,
    `--- a/${name}`,
    `+++ b/${name}`,
    "@@ -10,6 +10,7 @@ export class Store {",
    "   get(key: string) {",
    `-    ${before}`,
    `+    ${after}`,
    "+    return hit ?? this.map.get(key, { fallBackToTheDatabaseWhenTheEntryIsMissing: true });",
    "   }",
    " ",
    "   set(key: string, value: string) {",
  ].join("\n");

const DIFF = [
  fileDiff("src/store.ts", "return this.map.get(key);", "const hit = read(this.db, key); // read-through, measured at 0.2 ms per call on the nightly data"),
  fileDiff("src/cache/sweeper.ts", "setInterval(sweep, 60_000);", "setInterval(() => sweep(db, { olderThanMs: 60_000, batchSize: 500 }), SWEEP_INTERVAL_MS);"),
  fileDiff("test/store.test.ts", 'expect(store.get("a")).toBe("1");', 'expect(store.get("a")).toBe("1"); // and a second read comes from the cache'),
].join("\n");

const MARKDOWN = [
  "The cache sits in front of the store; the sweeper deletes what expired. See `src/cache.ts`.",
  "",
  "- [x] Reads go through the cache",
  "- [ ] The sweeper deletes in batches",
  "- [ ] Benchmarks on the nightly data",
  "",
  "> Expired rows are kept until the sweeper runs.",
].join("\n");

const BRIEFING = {
  title: TITLES.briefing,
  summary: "Three findings from profiling last night's run, and what I would do next.",
  project: "storefront-web",
  sections: [
    {
      title: "Findings",
      points: [
        { title: "Each row opens its own transaction", detail: "12 000 commits per run; batching them cuts the import from 41 to 6 minutes." },
        { title: "The SKU index is missing" },
        { title: "Images are resized twice" },
      ],
    },
    {
      title: "Next steps",
      points: [{ title: "Batch the inserts by 500" }, { title: "Add the index in a migration" }],
    },
  ],
};

/** Sends one ask of each kind and returns the agents' calls, left waiting for the person. */
export function sendRealisticAsks(agent: TestAgent): Record<Kind, Promise<ToolReply> & { settled: boolean }> {
  const question = running(agent.waitFor("ask_question", QUESTION));
  const review = running(
    agent.waitFor("request_review", {
      title: TITLES.review,
      summary: "Reads go through a **prepared statement**; writes stay as they were.",
      project: "billing-service",
      content: [
        { type: "markdown", text: MARKDOWN },
        { type: "code", language: "ts", filename: "src/cache.ts", code: CODE },
        { type: "diff", diff: DIFF },
      ],
    }),
  );
  const briefing = running(agent.waitFor("send_briefing", BRIEFING));
  // The calls end when the test closes its agent; that is not a failure of the test.
  for (const call of [question, review, briefing]) call.catch(() => {});
  return { question, review, briefing };
}

/** An ask's title as an agent gave it: a question's text, a review's or briefing's title, an approval's tool. */
export const titleOf = (ask: Ask): string => (ask.kind === "question" ? ask.prompt.question : ask.kind === "approval" ? ask.prompt.tool : ask.prompt.title);
