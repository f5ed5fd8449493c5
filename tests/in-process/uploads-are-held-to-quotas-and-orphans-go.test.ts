// Uploads cannot fill the relay's disk: the image bytes one token, and one space, hold stored are
// capped (413 `upload.over_quota`), and an image no ask named is deleted once a ticket's time has
// passed since it was stored, which gives its room back. In-process on a clock the test moves, on
// both stores, which count the bytes and keep when each image was stored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_SWEEP_EVERY_S, DEFAULT_UPLOAD_TTL_S } from "../../relay/src/config.ts";
import { Agent } from "../support/agent.ts";
import { BOTH_STORES, inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";
import { until } from "../support/scene.ts";
import { review } from "../relay/open-ask.ts";
import { PNG, put, uploadImage, uploadTicket } from "../relay/upload-image.ts";

const MiB = 1024 * 1024;
const TEST_AGENT = { name: "test-agent", version: "1.0.0" };

describe.each(BOTH_STORES)("on %s", (store) => {
  let quotas: InProcessScene;
  let sweeping: InProcessScene;

  beforeAll(async () => {
    quotas = await inProcessScene({ store, client: TEST_AGENT, env: { LOOPBACK_UPLOAD_QUOTA_TOKEN_MB: String((PNG.length * 3.5) / MiB), LOOPBACK_UPLOAD_QUOTA_SPACE_MB: String((PNG.length * 5.5) / MiB) } });
    sweeping = await inProcessScene({ store, client: TEST_AGENT, env: { LOOPBACK_UPLOAD_QUOTA_TOKEN_MB: String((PNG.length * 1.5) / MiB) } });
  }, 30_000);
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
    const other = await Agent.connect(quotas.url, await quotas.token({ agent: true }));
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

    const sweepingOnly = await Agent.connect(sweeping.url, await sweeping.token({ person: "bob", agent: true }));
    try {
      const orphan = await uploadImage(sweepingOnly);
      const bob = await sweeping.token({ person: "bob" });
      const file = (id: string, token: string) => fetch(`${sweeping.url}/api/v1/files/${id}`, { headers: { Authorization: `Bearer ${token}` } });
      expect((await file(orphan, bob)).status).toBe(200);
      // A ticket's time after it was stored, and a sweep since.
      await sweeping.clock.advance((DEFAULT_UPLOAD_TTL_S + DEFAULT_SWEEP_EVERY_S) * 1000);
      await until(async () => (await file(orphan, bob)).status === 404, "the orphan is swept");
      expect((await file(named, sweeping.person.token)).status).toBe(200);
      // Its bytes no longer count: bob's token stores another image.
      expect(await uploadImage(sweepingOnly)).toStartWith("upl_");
    } finally {
      await sweepingOnly.close();
    }
  });
});
