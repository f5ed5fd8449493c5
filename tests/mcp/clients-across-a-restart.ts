// SDK clients posing as Claude Code, Codex and Gemini CLI, each with one call waiting on its own ask,
// in a process of their own: each holds two requests open and Bun's fetch sends at most 256 at a
// time unless BUN_CONFIG_MAX_HTTP_REQUESTS, read when the process starts, says otherwise.
//   bun tests/mcp/clients-across-a-restart.ts URL TOKEN CALLS_PER_CLIENT PROJECT_PREFIX
// Each call asks a question whose project is `PREFIX-KIND-N`. Once every call is sent it writes
// `sent` to stderr; once every call has returned, one JSON object to stdout: each call's result and
// when it arrived (ms since the epoch), and what went wrong on the wire per client.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CLIENTS, type ClientKind } from "./raw-client.ts";
import { questionInput } from "./mcp-scene.ts";

const [url, token, perClientArg, prefix] = process.argv.slice(2);
const perClient = Number(perClientArg);
const KINDS = Object.keys(CLIENTS) as ClientKind[];

/** Per client: connections refused or reset, `initialize`s after the first, `DELETE`s sent. */
const wire = Object.fromEntries(KINDS.map((k) => [k, { refused: 0, initializes: 0, deletes: 0 }])) as Record<ClientKind, { refused: number; initializes: number; deletes: number }>;

/** An SDK client posing as `kind` by what it sends: its name, protocol version and kind of progress token. */
async function clientAs(kind: ClientKind): Promise<Client> {
  const { name, version, protocolVersion, progressToken } = CLIENTS[kind];
  let connected = false;
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: async (input, init) => {
      if (init?.method === "DELETE") wire[kind].deletes++;
      if (typeof init?.body === "string") {
        const body = JSON.parse(init.body);
        if (body.method === "initialize") {
          if (connected) wire[kind].initializes++;
          body.params.protocolVersion = protocolVersion;
        }
        if (body.method === "tools/call") body.params._meta = { ...body.params._meta, progressToken: progressToken(body.id) };
        init = { ...init, body: JSON.stringify(body) };
      }
      try {
        return await fetch(input, init);
      } catch (e) {
        wire[kind].refused++;
        throw e;
      }
    },
  });
  const client = new Client({ name, version });
  await client.connect(transport);
  connected = true;
  return client;
}

const clients: { kind: ClientKind; project: string; client: Client }[] = [];
const all = KINDS.flatMap((kind) => Array.from({ length: perClient }, (_, i) => ({ kind, project: `${prefix}-${kind}-${i}` })));
for (let i = 0; i < all.length; i += 50) {
  clients.push(...(await Promise.all(all.slice(i, i + 50).map(async (c) => ({ ...c, client: await clientAs(c.kind) })))));
}

const results = Promise.all(
  clients.map(async ({ kind, project, client }) => {
    const result = (await client.callTool({ name: "ask_question", arguments: questionInput(project) }, undefined, { timeout: 120_000 })) as CallToolResult;
    return { kind, project, at: performance.timeOrigin + performance.now(), result };
  }),
);
console.error("sent");
const done = await results;
// Gemini CLI sends no DELETE; closing here sends none for any of them either.
await Promise.all(clients.map(({ client }) => client.close()));
console.log(JSON.stringify({ results: done, wire }));
process.exit(0);
