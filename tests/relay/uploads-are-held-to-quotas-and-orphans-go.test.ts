// Uploads cannot fill the relay's disk: the image bytes one token, and one space, hold stored are
// capped (413 `upload.over_quota`), and an image no ask named is deleted once a ticket's time has
// passed since it was stored, which gives its room back.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { Agent } from "../support/agent.ts";
import { scene, until, type Scene } from "../support/scene.ts";
import { review } from "./open-ask.ts";
import { PNG, put, uploadImage, uploadTicket } from "./upload-image.ts";

setDefaultTimeout(30_000);

const MiB = 1024 * 1024;
let quotas: Scene;
let sweeping: Scene;

beforeAll(async () => {
  quotas = await scene({ env: { LOOPBACK_UPLOAD_QUOTA_TOKEN_MB: String((PNG.length * 3.5) / MiB), LOOPBACK_UPLOAD_QUOTA_SPACE_MB: String((PNG.length * 5.5) / MiB) } });
  sweeping = await scene({ env: { LOOPBACK_UPLOAD_TTL_S: "1", LOOPBACK_SWEEP_EVERY_S: "0.1", LOOPBACK_UPLOAD_QUOTA_TOKEN_MB: String((PNG.length * 1.5) / MiB) } });
});
afterAll(async () => {
  await quotas?.dispose();
  await sweeping?.dispose();
});

async function refusedUpload(agent: Agent) {
  const res = await put(await uploadTicket(agent), PNG);
  return [res.status, res.body.code, res.body.message as string] as const;
}

test("a token's stored image bytes, and its space's, are held to their quotas", async () => {
  for (let i = 0; i < 3; i++) await uploadImage(quotas.agent);
  const [status, code, words] = await refusedUpload(quotas.agent);
  expect([status, code]).toEqual([413, "upload.over_quota"]);
  expect(words).toContain("token");
  // Another agent of the space has room of its own, until the space is full.
  const other = await Agent.connect(quotas.relay.url, await quotas.relay.token("ada", { agent: true }));
  try {
    for (let i = 0; i < 2; i++) await uploadImage(other);
    const [status2, code2, words2] = await refusedUpload(other);
    expect([status2, code2]).toEqual([413, "upload.over_quota"]);
    expect(words2).toContain("space");
  } finally {
    await other.close();
  }
});

test("an image no ask named is deleted after its grace, one an ask names is kept, and the room comes back", async () => {
  const named = await uploadImage(sweeping.agent);
  const r = await review(sweeping.person, sweeping.agent, { content: [{ type: "image", uploadId: named }] });
  // The token's quota holds one image: the next waits for the orphan's room.
  expect((await refusedUpload(sweeping.agent))[1]).toBe("upload.over_quota");
  await sweeping.person.reply(r.ask.id, { outcome: "approved" });

  const sweepingOnly = await Agent.connect(sweeping.relay.url, await sweeping.relay.token("bob", { agent: true }));
  try {
    const orphan = await uploadImage(sweepingOnly);
    const bob = await sweeping.relay.token("bob");
    const file = (id: string, token: string) => fetch(`${sweeping.relay.url}/api/v1/files/${id}`, { headers: { Authorization: `Bearer ${token}` } });
    expect((await file(orphan, bob)).status).toBe(200);
    await until(async () => (await file(orphan, bob)).status === 404, "the orphan is swept", 10_000);
    expect((await file(named, sweeping.person.token)).status).toBe(200);
    // Its bytes no longer count: bob's token stores another image.
    expect(await uploadImage(sweepingOnly)).toStartWith("upl_");
  } finally {
    await sweepingOnly.close();
  }
});
