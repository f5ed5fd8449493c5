// The ports the tests give their servers (relays, PostgreSQL, HAProxy, the scripted model API) lie
// below the kernel's ephemeral range: a port taken from that range and freed could be handed to any
// outgoing connection before the server bound it.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { freePort } from "../support/relay-process.ts";

test("freePort gives distinct ports below the kernel's ephemeral range, each free to bind", async () => {
  const [ephemeralFrom] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
  const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
  expect(new Set(ports).size).toBe(ports.length);
  expect(ports.filter((p) => p >= ephemeralFrom! || p < 1024)).toEqual([]);
  for (const port of ports) Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
});

test("each run side by side picks its ports from a part of the range no other run picks from", async () => {
  const picks = async (part: string) => {
    const before = process.env.LOOPBACK_TEST_PORTS;
    process.env.LOOPBACK_TEST_PORTS = part;
    try {
      return await Promise.all(Array.from({ length: 50 }, () => freePort()));
    } finally {
      if (before === undefined) delete process.env.LOOPBACK_TEST_PORTS;
      else process.env.LOOPBACK_TEST_PORTS = before;
    }
  };
  const [first, second] = [await picks("0/4"), await picks("1/4")];
  // Every port of the first part lies below every port of the second.
  expect(Math.max(...first)).toBeLessThan(Math.min(...second));
});
