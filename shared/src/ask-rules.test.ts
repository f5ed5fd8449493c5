// The shape of ask-rules/ itself: the relay and the browser inbox both run these rules, so they must
// stay pure and importable anywhere, and each one proven beside it.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = join(import.meta.dir, "ask-rules");
const files = readdirSync(dir).filter((name) => name.endsWith(".ts"));
const rules = files.filter((name) => !name.endsWith(".test.ts") && name !== "index.ts");
const source = (name: string) => readFileSync(join(dir, name), "utf8");
/** The asks the tests work on, built by the rules: as deterministic as the rules themselves. */
const SAMPLE_ASKS = readFileSync(join(import.meta.dir, "testing", "sample-asks.ts"), "utf8");
const IMPURE = /\bDate\.now\b|\bnew Date\b|\bMath\.random\b|\bcrypto\.|\bfetch\(|\bBun\.|\bprocess\.|\bperformance\.|\bsetTimeout\b|\blocalStorage\b/;
const code = (text: string) => text.replace(/^\s*(\/\/|\*|\/\*).*$/gm, "");

describe("ask-rules", () => {
  test("there are rules to check", () => expect(rules.length).toBeGreaterThan(0));

  for (const name of rules) {
    describe(name, () => {
      test("is proven by a test beside it", () => expect(files).toContain(name.replace(/\.ts$/, ".test.ts")));

      test("is exported from index.ts", () => expect(source("index.ts")).toContain(`export * from "./${name}";`));
    });
  }

  test("holds no fixtures: the sample asks live in testing/", () => {
    expect(files.filter((name) => !name.endsWith(".test.ts") && /sample|fixture/.test(name))).toEqual([]);
  });

  test("the sample asks read no clock, randomness, store or network", () => expect(code(SAMPLE_ASKS)).not.toMatch(IMPURE));

  for (const name of [...rules, "index.ts"]) {
    test(`${name} reads no clock, randomness, store or network`, () => expect(code(source(name))).not.toMatch(IMPURE));

    test(`${name} imports only the contract's types, the problem table and other rules`, () => {
      const imports = [...source(name).matchAll(/from "([^"]+)"/g)].map((match) => match[1]);
      // diff2html's parser is pure, and the one the inbox draws diffs with: a line it shows is a line the rules accept.
      // jsdiff is pure too: it writes an agent's edit as the diff the inbox shows.
      for (const path of imports) expect(path).toMatch(/^(\.\/[a-z-]+\.ts|\.\.\/generated\/types\.ts|\.\.\/problems\.ts|diff2html\/lib-esm\/(diff-parser|types)\.js|diff)$/);
    });
  }
});
