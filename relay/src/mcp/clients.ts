// What the relay knows of the MCP clients people run, by the name their `initialize` gives
// (`clientInfo.name`), as measured against their binaries: whether they resume a call's stream after
// it ends without a result (`GET` + `Last-Event-ID`), whatever protocol version they negotiate.
/** The first protocol version whose clients read an event without data (a priming event) and resume. */
export const RESUMABLE_PROTOCOL = "2025-11-25";

export interface ClientProfile {
  /** Resumes a blocking call's stream on a protocol older than RESUMABLE_PROTOCOL too. */
  resumesStreams: boolean;
}

const UNKNOWN: ClientProfile = { resumesStreams: false };

export const CLIENTS: Record<string, ClientProfile> = {
  // Claude Code's transport (the TypeScript SDK) resumes once it has seen an event id.
  "claude-code": { resumesStreams: true },
  // Codex's transport (rmcp) resumes a request's stream once it has seen an event id.
  "codex-mcp-client": { resumesStreams: true },
  // Gemini CLI's transport (the TypeScript SDK it bundles) resumes once it has seen an event id.
  "gemini-cli-mcp-client": { resumesStreams: true },
};

export function clientProfile(name: string | undefined): ClientProfile {
  return (name !== undefined && Object.hasOwn(CLIENTS, name) ? CLIENTS[name] : undefined) ?? UNKNOWN;
}

/** Whether a client resumes a call's stream that ends without a result. */
export function resumesStreams(protocolVersion: string, clientName: string | undefined): boolean {
  return protocolVersion >= RESUMABLE_PROTOCOL || clientProfile(clientName).resumesStreams;
}
