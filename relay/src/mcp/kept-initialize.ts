// What a session keeps of the client's `initialize`: only what rebuilding the session needs (the
// protocol version, the capabilities the SDK checks, who the client is). A session lives for days and
// every replica may rebuild it, so whatever else a client pads its `initialize` with is never kept.

/** An `initialize` larger than this is refused: real clients send a few hundred bytes. */
export const MAX_INITIALIZE_BYTES = 16 * 1024;
/** The capabilities the SDK reads from a client's `initialize`; anything else is not kept. */
const KNOWN_CAPABILITIES = ["roots", "sampling", "elicitation", "tasks"] as const;
const MAX_NAME_CHARS = 200;

export interface KeptInitialize {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string };
}

/** The `initialize` params worth keeping, or null when they are too large to take at all. */
export function keptInitialize(params: unknown): KeptInitialize | null {
  if (new TextEncoder().encode(JSON.stringify(params ?? null)).length > MAX_INITIALIZE_BYTES) return null;
  const p = (params ?? {}) as { protocolVersion?: unknown; capabilities?: Record<string, unknown>; clientInfo?: { name?: unknown; version?: unknown } };
  const capabilities: Record<string, unknown> = {};
  for (const key of KNOWN_CAPABILITIES) if (p.capabilities?.[key] !== undefined) capabilities[key] = p.capabilities[key];
  const text = (value: unknown) => (typeof value === "string" ? value.slice(0, MAX_NAME_CHARS) : "");
  return {
    protocolVersion: text(p.protocolVersion),
    capabilities,
    clientInfo: { name: text(p.clientInfo?.name), version: text(p.clientInfo?.version) },
  };
}
