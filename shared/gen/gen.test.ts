import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { drift, emitContract, expectedFiles, ROOT } from "./gen.ts";

const PUBLISHED_REVISION_1 = join(ROOT, "../shared/seeds/openapi.1.json");

describe("the contract", () => {
  const docs = emitContract();

  test("emits revision 1 byte for byte as published and frozen", () => {
    const frozen = readFileSync(join(ROOT, "revisions/openapi.1.json"), "utf8");
    expect(docs.get("1")).toBe(frozen);
    // The published seed sits beside every checkout, CI's too: without it there is nothing to hold revision 1 to.
    expect(existsSync(PUBLISHED_REVISION_1), `the published seed ${PUBLISHED_REVISION_1} is missing`).toBe(true);
    expect(frozen).toBe(readFileSync(PUBLISHED_REVISION_1, "utf8"));
  });

  test("leaves every frozen revision and generated file unchanged", () => {
    const { frozenChanged, stale } = drift(expectedFiles(docs));
    expect(frozenChanged).toEqual([]);
    expect(stale).toEqual([]);
  });

  test("each revision lists itself and its elders, never a later one", () => {
    const enumOf = (rev: string) => JSON.parse(docs.get(rev)!).components.schemas.Revisions.enum;
    expect(enumOf("1")).toEqual(["1"]);
    expect(enumOf("2")).toEqual(["1", "2"]);
    expect(enumOf("3")).toEqual(["1", "2", "3"]);
  });

  test("line comments are revision 3's alone: revisions 1 and 2 still require feedback and know no comments", () => {
    const schemas = (rev: string) => JSON.parse(docs.get(rev)!).components.schemas;
    for (const rev of ["1", "2"]) {
      expect([rev, schemas(rev).ReviewComment, schemas(rev).ChangesRequested.required]).toEqual([rev, undefined, ["outcome", "feedback"]]);
      expect(schemas(rev).Approved.properties.comments).toBeUndefined();
    }
    expect(schemas("3").ChangesRequested.required).toEqual(["outcome"]);
    expect(Object.keys(schemas("3").ReviewComment.properties)).toEqual(["block", "file", "side", "line", "body"]);
  });

  test("a snapshot of summaries is revision 5's: revisions 1 to 4 list asks whole and know no summary", () => {
    const schemas = (rev: string) => JSON.parse(docs.get(rev)!).components.schemas;
    for (const rev of ["1", "2", "3", "4"]) {
      expect([rev, schemas(rev).AskSummary, schemas(rev).Snapshot.properties.open.items]).toEqual([rev, undefined, { $ref: "#/components/schemas/Ask" }]);
      expect(schemas(rev).Snapshot.required).toEqual(["open", "recent"]);
    }
    expect(schemas("5").Snapshot.properties.open.items).toEqual({ $ref: "#/components/schemas/AskSummary" });
    expect(schemas("5").Snapshot.required).toEqual(["open", "recent", "whole"]);
    expect(schemas("4").PushSubscriptionInput.properties.expirationTime).toBeUndefined();
    expect(schemas("5").PushSubscriptionInput.properties.expirationTime.anyOf).toEqual([{ type: "number", format: "double" }, { type: "null" }]);
  });

  test("changing one doc comment is caught as a change to a shipped revision", () => {
    // Inside the checkout, so the copy finds the TypeSpec libraries in node_modules.
    const dir = mkdtempSync(join(ROOT, "node_modules/.spec-copy-"));
    try {
      cpSync(join(ROOT, "spec"), dir, { recursive: true });
      const main = join(dir, "main.tsp");
      const text = readFileSync(main, "utf8");
      const edited = text.replace("/** A choice offered with a question. */", "/** A choice offered with a question, edited. */");
      expect(edited).not.toBe(text);
      writeFileSync(main, edited);
      const { frozenChanged } = drift(expectedFiles(emitContract(dir)));
      expect(frozenChanged.map((p) => p.slice(ROOT.length + 1))).toEqual(["revisions/openapi.1.json", "revisions/openapi.2.json", "revisions/openapi.3.json", "revisions/openapi.4.json", "revisions/openapi.5.json"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
