// The events of a server-sent-events body, as they arrive: for tests that read MCP streams by hand.
export async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event?: string; id?: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: ?(.*)$/m.exec(block)?.[1] ?? "";
      const event = /^event: (.*)$/m.exec(block)?.[1];
      if (id !== undefined || data) yield { event, id, data };
    }
  }
}
