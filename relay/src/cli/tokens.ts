// `token create`, `token list` and `token revoke`: the store and the gate over it, nothing of the server.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { Gate } from "../auth/gate.ts";
import { Clock } from "../clock.ts";
import { cliCommand } from "../shipped.ts";
import { mcpLines, PUBLIC_URL_FILE } from "./agent-setup.ts";
import { fail } from "./fail.ts";
import { withStore } from "./with-store.ts";

/** Where agents reach the relay: its public URL when set, else where a relay on this data directory last listened. */
function reachableAt(config: Config): string {
  if (process.env.LOOPBACK_PUBLIC_URL || config.databaseUrl) return config.publicUrl;
  try {
    return readFileSync(join(config.dataDir, PUBLIC_URL_FILE), "utf8").trim() || config.publicUrl;
  } catch {
    return config.publicUrl;
  }
}

function withGate(config: Config, run: (gate: Gate) => Promise<void>): Promise<void> {
  return withStore(config, (store) => run(new Gate(store, new Clock())));
}

export function tokenCreate(config: Config, values: { person?: string | boolean; agent?: string | boolean; space?: string | boolean }): Promise<void> {
  return withGate(config, async (gate) => {
    if (typeof values.person !== "string" || !values.person) fail(`token create needs --person NAME (see \`${cliCommand()} token create --help\`)`);
    const agent = values.agent === true;
    const { token, tokenId, caller, created } = await gate.createToken({ person: values.person, space: values.space as string | undefined, agent });
    // Names are matched exactly: a typo or another case is a new person, who sees none of the asks.
    if (created.space) console.log(`Created space "${caller.spaceName}".`);
    if (created.person) {
      console.log(`Created person ${caller.person.name} in space "${caller.spaceName}" (no one of that exact name was there; names match exactly, case included).`);
    }
    console.log(`Created ${caller.tokenKind} token ${tokenId} for ${caller.person.name} in space "${caller.spaceName}". It is shown only now:`);
    if (agent) console.log(mcpLines(reachableAt(config), token));
    console.log(token);
  });
}

export function tokenList(config: Config): Promise<void> {
  return withGate(config, async (gate) => {
    for (const t of await gate.listTokens()) {
      console.log(`${t.id}  ${t.kind.padEnd(6)}  ${t.space}/${t.person}  created ${t.createdAt}${t.revokedAt ? `  revoked ${t.revokedAt}` : ""}`);
    }
  });
}

export function tokenRevoke(config: Config, tokenId: string): Promise<void> {
  return withGate(config, async (gate) => {
    if (!(await gate.revoke(tokenId))) fail(`No active token ${tokenId}`);
    console.log(`Revoked ${tokenId}`);
  });
}
