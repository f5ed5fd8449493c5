// Checks bodies against the frozen contract documents in revisions/, not the generated code: what
// the relay answers must fit the published revision byte-for-byte emitted from spec/main.tsp.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./relay-process.ts";

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, unknown> } };

const validators = new Map<string, { ajv: InstanceType<typeof Ajv2020>; doc: Doc }>();

function load(revision: string) {
  let v = validators.get(revision);
  if (!v) {
    const doc: Doc = JSON.parse(readFileSync(join(ROOT, `revisions/openapi.${revision}.json`), "utf8"));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: "contract", components: doc.components });
    v = { ajv, doc };
    validators.set(revision, v);
  }
  return v;
}

const compiled = new Map<string, ReturnType<InstanceType<typeof Ajv2020>["compile"]>>();

function check(revision: string, schema: unknown, body: unknown, what: string): void {
  const { ajv } = load(revision);
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"contract#/components/');
  let validate = compiled.get(revision + text);
  if (!validate) compiled.set(revision + text, (validate = ajv.compile(JSON.parse(text))));
  if (!validate(body)) {
    throw new Error(`${what} does not fit revision ${revision}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
  }
}

/** Asserts that `body` is what the contract declares for `method path` answering `status` (JSON bodies). */
export function assertResponse(revision: string, method: string, path: string, status: number, body: unknown): void {
  const { doc } = load(revision);
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`revision ${revision} has no ${method} ${path}`);
  const response = op.responses[String(status)];
  if (!response) throw new Error(`revision ${revision} declares no ${status} for ${method} ${path}`);
  const schema = response.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`${method} ${path} ${status} has no JSON body in revision ${revision}`);
  check(revision, schema, body, `${method} ${path} ${status}`);
}

/** Whether the contract declares a JSON body for `method path` answering `status`. */
export function declaresJson(revision: string, method: string, path: string, status: number): boolean {
  const { doc } = load(revision);
  return Boolean(doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)]?.content?.["application/json"]);
}

/** Asserts that `body` fits the named component schema, such as `ServerEvent` or `ToolReply`. */
export function assertShape(revision: string, component: string, body: unknown): void {
  check(revision, { $ref: `#/components/schemas/${component}` }, body, component);
}
