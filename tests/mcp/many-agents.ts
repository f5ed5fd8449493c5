// Many agents at once, in a process of their own: Bun's fetch sends at most 256 requests at a time
// unless BUN_CONFIG_MAX_HTTP_REQUESTS says otherwise, and it is read when the process starts.
//   bun tests/mcp/many-agents.ts URL TOKEN AGENTS CALLS_PER_AGENT
// Each call asks a question whose project is `load-N`; the results go to stdout as one JSON array.
import type { ToolReply } from "@loopback/shared/generated/types";
import { Agent } from "../support/agent.ts";

const [url, token, agentsArg, callsArg] = process.argv.slice(2);
const agents = Number(agentsArg);
const calls = Number(callsArg);

const connected: Agent[] = [];
for (let i = 0; i < agents; i += 50) {
  const batch = Array.from({ length: Math.min(50, agents - i) }, (_, j) => Agent.connect(url, token, `load-agent-${i + j}`, "1.0.0"));
  connected.push(...(await Promise.all(batch)));
}
console.error(`${connected.length} agents connected`);

const results = await Promise.all(
  connected.flatMap((agent, a) =>
    Array.from({ length: calls }, async (_, c) => {
      const project = `load-${a * calls + c}`;
      const result = await agent.call("ask_question", { question: `Question for ${project}`, project });
      return { project, ...(result.structuredContent as unknown as ToolReply), isError: result.isError ?? false };
    }),
  ),
);
await Promise.all(connected.map((agent) => agent.close()));
console.log(JSON.stringify(results));
process.exit(0);
