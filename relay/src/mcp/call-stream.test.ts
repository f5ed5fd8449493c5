import { expect, test } from "bun:test";
import { callStream, type StreamedCall } from "./call-stream.ts";

const call = (run: StreamedCall["run"]): StreamedCall => ({ requestId: 3, callId: "cal_x", readsPriming: true, retryMs: 1000, headers: {}, run, cancel: () => {}, ended: () => {} });
const RESULT = { content: [{ type: "text" as const, text: "{}" }] };

test("a result known before the call's promise settles is written and ends the stream at once", async () => {
  // The call's promise never settles here: only the early result can end the stream.
  const response = callStream(call((_, result) => {
    setTimeout(() => result(RESULT), 5);
    return new Promise(() => {});
  }));
  const text = await response.text();
  expect(text).toContain("id: cal_x:done\n");
  expect(text).toContain(`data: ${JSON.stringify({ jsonrpc: "2.0", id: 3, result: RESULT })}\n\n`);
});

test("a result written early is not written again when the call's promise brings it", async () => {
  const response = callStream(call(async (_, result) => {
    result(RESULT);
    return RESULT;
  }));
  const text = await response.text();
  expect(text.split("cal_x:done").length - 1).toBe(1);
});
