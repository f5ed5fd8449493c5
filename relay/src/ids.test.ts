// Tokens are kept only as their SHA-256 hashes: the hash must stay the standard one, or every token
// already minted (in a relay's file, in PostgreSQL, on people's machines) would stop working.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { hashSecret, newSecret } from "./ids.ts";

test("a secret's hash is its standard SHA-256, in hex", () => {
  expect(hashSecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const token = newSecret("lbp");
  expect(hashSecret(token)).toBe(createHash("sha256").update(token).digest("hex"));
});
