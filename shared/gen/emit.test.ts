// Each schema form the contract uses, from TypeSpec through the emitted document to the generated
// TypeScript and valibot: a TypeSpec upgrade that emits a form differently fails here, by form.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { emitToolSchemas, emitTypes, emitValibot, type Components, type JsonSchema } from "./emit.ts";
import { emitContract, ROOT } from "./gen.ts";

const FORMS_SPEC = `
import "@typespec/http";
import "@typespec/versioning";
using Http;
using Versioning;

@service(#{ title: "Forms" })
@versioned(Versions)
namespace Forms;
enum Versions { r1: "1" }

/** A sealed object. */
model Sealed {
  /** Always there. */
  name: string;
  note?: string;
}

model Cat { kind: "cat"; lives: int32 }
model Dog { kind: "dog"; barks: boolean }
union Pet { Cat, Dog }
union Loose { string, boolean }

model Literals {
  only: "only";
  level: "low" | "high";
}

model Bounded {
  @minItems(1) @maxItems(3) tags: string[];
  pets: Pet[];
}

model Strings {
  @pattern("^[a-z]+$") @minLength(1) @maxLength(8) slug: string;
  at: utcDateTime;
  @minValue(0) count: int32;
  big: int64;
}

model Nullable {
  nothing: string | null;
  @minValue(0) lapses?: float64 | null;
}

model Anything { thing: unknown }

model Open {
  name: string;
  input: Record<unknown>;
  ...Record<unknown>;
}

@route("/forms") op read(): { sealed: Sealed; pet: Pet; loose: Loose; literals: Literals; bounded: Bounded; strings: Strings; nullable: Nullable; anything: Anything; open: Open };
`;

const SEALED = { unevaluatedProperties: { not: {} } };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

interface Form {
  form: string;
  name: string;
  /** What TypeSpec emits for it: the form the generator is written against. */
  emitted: JsonSchema;
  /** The TypeScript declaration generated from it. */
  ts: string;
  accepts: unknown[];
  refuses: unknown[];
}

const FORMS: Form[] = [
  {
    form: "an object: required and optional fields, sealed, with doc comments",
    name: "Sealed",
    emitted: {
      type: "object",
      required: ["name"],
      properties: { name: { type: "string", description: "Always there." }, note: { type: "string" } },
      ...SEALED,
      description: "A sealed object.",
    },
    ts: "/** A sealed object. */\nexport interface Sealed {\n  /** Always there. */\n  name: string;\n  note?: string;\n}\n",
    accepts: [{ name: "a" }, { name: "a", note: "b" }],
    refuses: [{}, { name: 1 }, { name: "a", extra: true }],
  },
  {
    form: "a union whose variants a literal field tells apart",
    name: "Pet",
    emitted: { anyOf: [ref("Cat"), ref("Dog")] },
    ts: "export type Pet = Cat | Dog;\n",
    accepts: [{ kind: "cat", lives: 9 }, { kind: "dog", barks: true }],
    refuses: [{ kind: "cat", barks: true }, { kind: "fish" }, { lives: 9 }],
  },
  {
    form: "a union with no field to tell its variants apart",
    name: "Loose",
    emitted: { anyOf: [{ type: "string" }, { type: "boolean" }] },
    ts: "export type Loose = string | boolean;\n",
    accepts: ["a", false],
    refuses: [1, null],
  },
  {
    form: "literals: one value, and a choice of values",
    name: "Literals",
    emitted: {
      type: "object",
      required: ["only", "level"],
      properties: { only: { type: "string", enum: ["only"] }, level: { type: "string", enum: ["low", "high"] } },
      ...SEALED,
    },
    ts: 'export interface Literals {\n  only: "only";\n  level: "low" | "high";\n}\n',
    accepts: [{ only: "only", level: "low" }, { only: "only", level: "high" }],
    refuses: [{ only: "other", level: "low" }, { only: "only", level: "mid" }],
  },
  {
    form: "arrays, with bounds on their length and of references",
    name: "Bounded",
    emitted: {
      type: "object",
      required: ["tags", "pets"],
      properties: {
        tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3 },
        pets: { type: "array", items: ref("Pet") },
      },
      ...SEALED,
    },
    ts: "export interface Bounded {\n  tags: string[];\n  pets: Pet[];\n}\n",
    accepts: [{ tags: ["a"], pets: [] }, { tags: ["a", "b", "c"], pets: [{ kind: "dog", barks: false }] }],
    refuses: [{ tags: [], pets: [] }, { tags: ["a", "b", "c", "d"], pets: [] }, { tags: ["a"], pets: [{ kind: "fish" }] }],
  },
  {
    form: "strings with a pattern and length bounds, timestamps, and bounded integers",
    name: "Strings",
    emitted: {
      type: "object",
      required: ["slug", "at", "count", "big"],
      properties: {
        slug: { type: "string", minLength: 1, maxLength: 8, pattern: "^[a-z]+$" },
        at: { type: "string", format: "date-time" },
        count: { type: "integer", format: "int32", minimum: 0 },
        big: { type: "integer", format: "int64" },
      },
      ...SEALED,
    },
    ts: "export interface Strings {\n  slug: string;\n  at: string;\n  count: number;\n  big: number;\n}\n",
    accepts: [{ slug: "abc", at: "2025-01-02T03:04:05Z", count: 0, big: 2 ** 40 }],
    refuses: [
      { slug: "ABC", at: "2025-01-02T03:04:05Z", count: 0, big: 1 },
      { slug: "abcdefghi", at: "2025-01-02T03:04:05Z", count: 0, big: 1 },
      { slug: "abc", at: "yesterday", count: 0, big: 1 },
      { slug: "abc", at: "2025-01-02T03:04:05Z", count: -1, big: 1 },
      { slug: "abc", at: "2025-01-02T03:04:05Z", count: 2 ** 31, big: 1 },
      { slug: "abc", at: "2025-01-02T03:04:05Z", count: 1.5, big: 1 },
    ],
  },
  {
    form: "nullable fields, and a bounded number or null",
    name: "Nullable",
    emitted: {
      type: "object",
      required: ["nothing"],
      properties: {
        nothing: { anyOf: [{ type: "string" }, { type: "null" }] },
        lapses: { anyOf: [{ type: "number", format: "double" }, { type: "null" }], minimum: 0 },
      },
      ...SEALED,
    },
    ts: "export interface Nullable {\n  nothing: string | null;\n  lapses?: number | null;\n}\n",
    accepts: [{ nothing: null }, { nothing: "a", lapses: null }, { nothing: "a", lapses: 1.5 }],
    refuses: [{}, { nothing: 1 }, { nothing: null, lapses: -1 }, { nothing: null, lapses: "1" }, { nothing: null, lapses: Infinity }],
  },
  {
    form: "open objects: a map of anything, and a model that takes other properties besides its own",
    name: "Open",
    emitted: {
      type: "object",
      required: ["name", "input"],
      properties: { name: { type: "string" }, input: { type: "object", unevaluatedProperties: {} } },
      unevaluatedProperties: {},
    },
    ts: "export interface Open {\n  name: string;\n  input: Record<string, unknown>;\n  [key: string]: unknown;\n}\n",
    accepts: [{ name: "a", input: {} }, { name: "a", input: { command: "ls", n: 1 } }, { name: "a", input: {}, extra: [1] }],
    refuses: [{ name: "a" }, { name: "a", input: "ls" }, { name: "a", input: [] }],
  },
];

let components: Components;
let schemas: Record<string, v.GenericSchema>;
// Inside the checkout, so the spec finds the TypeSpec libraries and the module finds valibot.
const dir = mkdtempSync(join(ROOT, "node_modules/.emit-forms-"));

beforeAll(async () => {
  writeFileSync(join(dir, "main.tsp"), FORMS_SPEC);
  cpSync(join(ROOT, "spec/tspconfig.yaml"), join(dir, "tspconfig.yaml"));
  components = JSON.parse(emitContract(dir).get("1")!).components.schemas;
  const { Anything: _, ...supported } = components;
  writeFileSync(join(dir, "schemas.ts"), emitValibot(supported));
  schemas = await import(join(dir, "schemas.ts"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("each schema form", () => {
  for (const { form, name, emitted, ts, accepts, refuses } of FORMS) {
    describe(form, () => {
      test("is emitted by TypeSpec as the generator expects", () => expect(components[name]).toEqual(emitted));

      test("becomes its TypeScript declaration", () => expect(emitTypes({ [name]: components[name] })).toEndWith(`\n${ts}`));

      test("becomes a valibot schema that takes what fits and refuses what does not", () => {
        expect(accepts.map((value) => v.safeParse(schemas[name], value).success)).toEqual(accepts.map(() => true));
        expect(refuses.map((value) => v.safeParse(schemas[name], value).success)).toEqual(refuses.map(() => false));
      });
    });
  }

  test("a union told apart by a literal field is checked on that field, one told apart by nothing tries each", () => {
    const { Anything: _, ...supported } = components;
    const out = emitValibot(supported);
    expect(out).toContain('export const Pet = v.variant("kind", [Cat, Dog]);');
    expect(out).toContain("export const Loose = v.union([v.string(), v.boolean()]);");
  });

  test("a tool's JSON Schema has its references inlined and its sealing spelled for draft-07", () => {
    const tool = JSON.parse(/Bounded: (.*),\n/.exec(emitToolSchemas(components, ["Bounded"]))![1]);
    expect(tool.additionalProperties).toBe(false);
    expect(tool.properties.pets.items.anyOf.map((s: JsonSchema) => s.properties!.kind.enum)).toEqual([["cat"], ["dog"]]);
    expect(JSON.stringify(tool)).not.toContain("$ref");
  });

  test("an open object keeps what it does not name, in valibot and in a tool's JSON Schema", () => {
    const parsed = v.parse(schemas.Open, { name: "a", input: { command: "ls" }, extra: 1 });
    expect(parsed).toEqual({ name: "a", input: { command: "ls" }, extra: 1 });
    const tool = JSON.parse(/Open: (.*),\n/.exec(emitToolSchemas(components, ["Open"]))![1]);
    expect(tool.additionalProperties).toBeUndefined();
    expect(tool.properties.input.additionalProperties).toBeUndefined();
  });

  test("a field of any value, a form the contract does not use, stops the generator instead of being emitted loosely", () => {
    expect(components.Anything.properties!.thing).toEqual({});
    expect(() => emitTypes({ Anything: components.Anything })).toThrow("unsupported schema form");
    expect(() => emitValibot({ Anything: components.Anything })).toThrow("unsupported schema form");
  });
});
