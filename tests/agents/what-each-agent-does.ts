// `bun tests/agents/what-each-agent-does.ts`: runs each real agent against the probe MCP server
// (tests/support/agents/probe-mcp-server.ts) and prints what it did: its `initialize`, its progress
// token, what its SSE parser made of a priming event, whether it resumed a dropped call stream with
// `GET` + `Last-Event-ID`, and whether it sent `DELETE` on exit. docs/agents.md records the answers.
import { claudeCode } from "../support/agents/claude-code.ts";
import { codex } from "../support/agents/codex.ts";
import { geminiCli } from "../support/agents/gemini-cli.ts";
import type { AgentRun } from "../support/agents/agent-process.ts";
import type { ModelTurn } from "../support/agents/model-script.ts";
import { PROBE_CALLS, probeMcpServer } from "../support/agents/probe-mcp-server.ts";

// Each call differs, or Gemini CLI takes the repeats for a loop and stops.
const SCRIPT: ModelTurn[] = [...PROBE_CALLS.map((_, i) => ({ tool: "probe", args: { call: i + 1 } })), { text: "Probed." }];
const LAUNCHERS: Record<string, (relayUrl: string) => Promise<AgentRun>> = {
  // A call it never resumes ends at its tool timeout.
  "Claude Code": (relayUrl) => claudeCode({ relayUrl, token: "probe", script: SCRIPT, env: { MCP_TOOL_TIMEOUT: "5000" } }),
  Codex: (relayUrl) => codex({ relayUrl, token: "probe", script: SCRIPT }),
  "Gemini CLI": (relayUrl) => geminiCli({ relayUrl, token: "probe", script: SCRIPT }),
};

async function probe(name: string, launch: (relayUrl: string) => Promise<AgentRun>) {
  const server = probeMcpServer();
  const run = await launch(server.url);
  const exited = await Promise.race([run.exited, Bun.sleep(90_000).then(() => "still running after 90 s")]);
  // A client that closes its session does so as it exits.
  await Bun.sleep(1_000);
  const rq = server.requests;
  const init = rq.find((r) => r.rpc === "initialize");
  const calls = rq.filter((r) => r.rpc === "tools/call");
  const results = run.results.all.filter((r) => r.tool.endsWith("probe"));
  const gets = rq.filter((r) => r.method === "GET" && r.headers["last-event-id"]);
  const report = {
    client: name,
    exited,
    requests: rq.map((r) => `${r.method} ${r.rpc ?? ""}${r.headers["last-event-id"] ? ` Last-Event-ID: ${r.headers["last-event-id"]}` : ""}${r.headers["mcp-protocol-version"] ? ` (${r.headers["mcp-protocol-version"]})` : ""}`.trim()),
    initialize: init?.body.params,
    userAgent: init?.headers["user-agent"],
    firstRequest: rq[0]?.body,
    progressTokens: calls.map((c) => c.body.params?._meta?.progressToken),
    // Per call: how its stream went, what the model got back, and the resume (if any) sent before the next call.
    calls: calls.map((c, i) => {
      const next = calls[i + 1]?.at ?? Infinity;
      const resume = gets.find((g) => g.at > c.at && g.at < next);
      return {
        stream: PROBE_CALLS[i],
        modelGot: results[i]?.text.slice(0, 160),
        resumedWith: resume && { lastEventId: resume.headers["last-event-id"], msAfterCall: resume.at - c.at },
      };
    }),
    standaloneGets: rq.filter((r) => r.method === "GET" && !r.headers["last-event-id"]).length,
    sentDelete: rq.some((r) => r.method === "DELETE"),
  };
  await run.kill();
  server.stop();
  return report;
}

const only = process.argv.slice(2);
const reports = await Promise.all(Object.entries(LAUNCHERS).filter(([n]) => !only.length || only.some((o) => n.toLowerCase().startsWith(o.toLowerCase()))).map(([n, l]) => probe(n, l)));
console.log(JSON.stringify(reports, null, 2));
