import { expect, test } from "bun:test";
import { callStream, streamEventOf, type StreamedCall } from "./call-stream.ts";

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

test("every event id a stream writes names its call when a client resumes with it, the result's as done", async () => {
  const response = callStream(call(async (progress) => {
    progress({ method: "notifications/progress", params: { progressToken: 1, progress: 1 } });
    return RESULT;
  }));
  const ids = [...(await response.text()).matchAll(/^id: (.*)$/gm)].map((m) => m[1]);
  expect(ids).toEqual(["cal_x:0", "cal_x:1", "cal_x:done"]);
  expect(ids.map(streamEventOf)).toEqual([{ callId: "cal_x", done: false }, { callId: "cal_x", done: false }, { callId: "cal_x", done: true }]);
  for (const foreign of ["", "cal_x", "ses_x:1", "cal_x:1:2", "cal_X:1"]) expect(streamEventOf(foreign)).toBeUndefined();
});
