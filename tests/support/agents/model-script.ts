// What a scripted model does, turn by turn, whatever API it speaks: call a tool with these arguments,
// or end with a text. The turn is read from the conversation the agent sends (how many answers the
// model already gave), so a retried request gets the same answer.
export type ModelTurn = ({ tool: string; args: ToolArgs } | { text: string }) & {
  /** The model answers this turn only once it settles: a test holds the agent's next step with it. */
  hold?: Promise<unknown>;
};

/** A tool call's arguments, or how to make them from the results the model saw so far (an `askId` it got back). */
export type ToolArgs = Record<string, unknown> | ((seen: ObservedResult[]) => Record<string, unknown>);

/** The scripted turn after `answered` answers, once its hold settled, with its arguments made: a text after the script. */
export async function turnAfter(script: ModelTurn[], answered: number, results: ObservedResults): Promise<{ text: string } | { tool: string; args: Record<string, unknown> }> {
  const turn = script[answered] ?? { text: "Done." };
  await turn.hold;
  if ("text" in turn) return { text: turn.text };
  return { tool: turn.tool, args: typeof turn.args === "function" ? turn.args(results.all) : turn.args };
}

/** The newest result of a tool whose name ends with `tool`. */
export function lastResultOf(seen: ObservedResult[], tool: string): ObservedResult {
  const found = seen.findLast((r) => r.tool.endsWith(tool));
  if (!found) throw new Error(`no result of ${tool} yet; saw ${JSON.stringify(seen)}`);
  return found;
}

/** The ask id in a tool result's text, however the agent wrapped or escaped it. */
export function askIdIn(text: string): string {
  const id = /ask_[a-z0-9]+/.exec(text)?.[0];
  if (!id) throw new Error(`no ask id in ${text}`);
  return id;
}

/** A tool result the agent handed back to the model: what a person's answer looks like once it got there. */
export interface ObservedResult {
  /** The tool's name as the model called it (the agent's own namespacing, e.g. `mcp__loopback__ask_question`). */
  tool: string;
  /** The result's text, as the agent put it in the conversation. */
  text: string;
  /** When the model server received it (ms since the epoch). */
  at: number;
}

/** The tool results a model server saw, in order, with a way to wait for the next one. */
export class ObservedResults {
  readonly all: ObservedResult[] = [];
  #seen = new Set<string>();
  #waiters: (() => void)[] = [];

  /** Records a result once, by the id the agent gave its call (a retried request repeats it). */
  add(callId: string, tool: string, text: string): void {
    if (this.#seen.has(callId)) return;
    this.#seen.add(callId);
    this.all.push({ tool, text, at: Date.now() });
    for (const w of this.#waiters.splice(0)) w();
  }

  /** The first result of a tool whose name ends with `tool` and whose text `match` accepts, once it arrived. */
  async next(tool: string, match: (text: string) => boolean = () => true, timeoutMs = 30_000): Promise<ObservedResult> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.all.find((r) => r.tool.endsWith(tool) && match(r.text));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no result of ${tool} reached the model in ${timeoutMs} ms; saw ${JSON.stringify(this.all)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }
}

/** A model server's common face: its address, what it saw and how to stop it. */
export interface ModelServer {
  readonly url: string;
  readonly results: ObservedResults;
  /** Every request body on the agent-loop endpoint, for a test that reads what the agent sent. */
  readonly requests: unknown[];
  stop(): void;
}

/** The text of a tool result block, whatever shape the API gives it (a string, text parts, or JSON). */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : (p?.text ?? JSON.stringify(p)))).join("");
  return JSON.stringify(content);
}
