// Identifiers and secrets. Ids are not secret, but random so one space cannot guess another's;
// tokens carry 256 bits and are stored only as SHA-256 hashes.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

function random(chars: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(chars));
  let out = "";
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

export const newId = (prefix: "ask" | "spc" | "psn" | "tok" | "upl" | "tsk" | "cal" | "dev" | "rpl") => `${prefix}_${random(16)}`;

export const newSecret = (prefix: string) => `${prefix}_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;

export const hashSecret = (secret: string) => new Bun.CryptoHasher("sha256").update(secret).digest("hex");
