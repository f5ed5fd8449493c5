import { describe, expect, it } from "vitest";
import { connectionNotice } from "./connection-notice";

describe("the connection notice", () => {
  it("says nothing while live or not connected to any relay", () => {
    expect(connectionNotice(true, { state: "live", since: "" })).toBeNull();
    expect(connectionNotice(false, { state: "retrying", reason: "", retryAt: "" })).toBeNull();
  });

  it("says the relay can't be reached, and that a reply is kept", () => {
    expect(connectionNotice(true, { state: "retrying", reason: "down", retryAt: "" })).toEqual({
      headline: "Can't reach the relay — reconnecting",
      forReply: "A reply you send now is kept, and sent when it is back.",
    });
    expect(connectionNotice(true, null)?.headline).toBe("Connecting to the relay");
  });

  it("says a refused token stops every reply, and leaves a rolled-back relay to its banner", () => {
    expect(connectionNotice(true, { state: "stopped", kind: "unauthorized", reason: "" })?.forReply).toBe("Nothing can be sent until you connect again.");
    expect(connectionNotice(true, { state: "stopped", kind: "reload", reason: "" })).toBeNull();
  });
});
