// "Changes since the round you last saw" compares the code each round shows, file by file, not the
// patch text: of two rounds whose diffs touch two files, where only one file's code changed, the
// side panel shows that file alone, its changed code lines alone (no `index` or `@@` line, no
// doubled marker), the earlier comment beside the line it was made on, and the list calls the
// second review a new round.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ReviewComment } from "@loopback/shared/generated/types";
import { PanelScene } from "./harness/panel-scene";
import { STEP_MS } from "./harness/timeouts";
import { COMMENTED, ROUND_1, ROUND_2, round } from "./harness/two-rounds";

const scene = new PanelScene();

beforeAll(async () => {
  await scene.start();
  await scene.openPanel();
}, 120_000);
afterAll(() => scene.close(), 30_000);

describe("the changes between rounds", () => {
  test("two reviews whose diffs change one file show only that file's changed code lines", async () => {
    const first = scene.agent.waitFor("request_review", round("rounds", ROUND_1));
    const firstId = await scene.open("Retry the import (rounds)");
    // The comment on retry(3), through the relay as another device of the person's would send it.
    const comment: ReviewComment = { block: 0, ...COMMENTED, body: "Why three?" };
    const sent = await fetch(`${scene.relay.url}/api/v1/asks/${firstId}/reply`, {
      method: "POST",
      headers: { Authorization: `Bearer ${scene.personToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ outcome: "changes_requested", comments: [comment] }),
    });
    expect(sent.status).toBe(200);
    await first;

    void scene.agent.waitFor("request_review", round("rounds", ROUND_2, firstId)).catch(() => {});
    await scene.toList();
    const second = scene.panel.locator("[data-ask-row]", { hasText: "Retry the import (rounds)" }).filter({ has: scene.panel.locator("[data-new-round]") });
    await second.waitFor({ timeout: STEP_MS });
    await second.click();
    await scene.panel.getByRole("button", { name: /Changes since the round you last saw/ }).click();
    const changes = scene.panel.locator("[data-round-changes]");
    await changes.locator("[data-change] .d2h-file-wrapper table").first().waitFor({ timeout: STEP_MS });

    const seen = await changes.evaluate((root) => ({
      files: [...root.querySelectorAll("[data-change] h3 .name")].map((el) => el.textContent),
      changed: [...root.querySelectorAll("[data-change] tr")]
        .filter((tr) => tr.querySelector(".d2h-ins, .d2h-del"))
        .map((tr) => tr.querySelector(".d2h-code-line")?.textContent?.replace(/\s+/g, " ").trim()),
      unchanged: root.querySelector("[data-unchanged]")?.textContent,
      earlier: [...root.querySelectorAll("[data-comment=earlier]")].map((el) => ({
        text: el.querySelector(".body")?.textContent,
        beside: el.closest("tr")?.previousElementSibling?.querySelector(".d2h-code-line")?.textContent?.replace(/\s+/g, " ").trim(),
      })),
    }));
    expect(seen.files).toEqual(["src/retry.ts"]);
    expect(seen.changed).toEqual(["- retry(3);", "+ retry(5);"]);
    expect(seen.unchanged).toContain("src/same.ts");
    expect(seen.earlier).toEqual([{ text: "Why three?", beside: "- retry(3);" }]);
  }, 90_000);
});
