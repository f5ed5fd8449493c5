// Every way in (REST bodies, MCP arguments) checks its input against the contract's schema the same
// way, so a bad field is named the same wherever it came from.
import * as v from "valibot";
import { problem } from "@loopback/shared/problems";

/** Parses `value` with a contract schema, refusing with `code` and the first issue's path. */
export function parseShape<S extends v.GenericSchema>(schema: S, value: unknown, code: "input.invalid" | "body.invalid"): v.InferOutput<S> {
  const res = v.safeParse(schema, value);
  if (res.success) return res.output;
  const issue = res.issues[0];
  const path = v.getDotPath(issue);
  throw problem(code, `${path ? `At \`${path}\`: ` : ""}${issue.message}.`);
}
