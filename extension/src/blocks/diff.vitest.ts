import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import Diff from "./Diff.svelte";
import { FILE_LINES_OPEN, withHeaders } from "./diff";
import { diffLayout } from "./diff-layout.svelte";

const twoFiles = `diff --git a/src/a.ts b/src/a.ts
--- a/src/a.ts
+++ b/src/a.ts
@@ -1,3 +1,3 @@
 keep
-const a = 1;
+const a = 2;
 keep
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1,2 @@
 # Title
+More words.
`;

function bigDiff(lines: number): string {
  const body = Array.from({ length: lines }, (_, i) => `+line ${i}`).join("\n");
  return `--- a/big.txt\n+++ b/big.txt\n@@ -0,0 +1,${lines} @@\n${body}\n`;
}

describe("diff", () => {
  it("names every file with its added and removed lines", async () => {
    diffLayout.set("line-by-line");
    const { container } = render(Diff, { diff: twoFiles });
    await waitFor(() => expect(container.querySelectorAll("[data-diff-file]")).toHaveLength(2));
    const names = [...container.querySelectorAll(".file-head .file-name")].map((n) => n.textContent);
    expect(names).toEqual(["src/a.ts", "README.md"]);
    expect(screen.getByText("2 files")).toBeTruthy();
    await waitFor(() => expect(container.querySelectorAll(".d2h-file-wrapper")).toHaveLength(2));
    const inserted = [...container.querySelectorAll(".d2h-ins")].map((cell) => cell.textContent);
    expect(inserted.some((text) => text?.includes("const a = 2;"))).toBe(true);
  });

  it("switches between unified and side-by-side", async () => {
    diffLayout.set("line-by-line");
    const { container } = render(Diff, { diff: twoFiles });
    await waitFor(() => expect(container.querySelector(".d2h-file-diff")).not.toBeNull());
    expect(container.querySelector(".d2h-file-side-diff")).toBeNull();
    await fireEvent.click(screen.getByRole("button", { name: "Split" }));
    await waitFor(() => expect(container.querySelector(".d2h-file-side-diff")).not.toBeNull());
    expect(screen.getByRole("button", { name: "Split" }).getAttribute("aria-pressed")).toBe("true");
    await fireEvent.click(screen.getByRole("button", { name: "Unified" }));
    await waitFor(() => expect(container.querySelector(".d2h-file-side-diff")).toBeNull());
  });

  it("uses the block's file name for bare hunks", async () => {
    expect(withHeaders("@@ -1 +1 @@\n-a\n+b\n", "x.py")).toMatch(/^--- a\/x.py\n\+\+\+ b\/x.py\n/);
    const { container } = render(Diff, { diff: "@@ -1 +1 @@\n-a\n+b\n", filename: "x.py" });
    await waitFor(() => expect(container.querySelector("[data-diff-file='x.py']")).not.toBeNull());
  });

  it("folds a file too large to render at once, and renders it on demand", async () => {
    const { container } = render(Diff, { diff: bigDiff(FILE_LINES_OPEN + 100) });
    await waitFor(() => expect(container.querySelector("[data-diff-file]")).not.toBeNull());
    expect(container.querySelector(".d2h-file-wrapper")).toBeNull();
    await fireEvent.click(screen.getByText(/changed lines folded/));
    await waitFor(() => expect(container.querySelector(".d2h-file-wrapper")).not.toBeNull());
  });

  it("opens a 256 KiB diff quickly by rendering only what fits the budget", async () => {
    const files = Array.from({ length: 40 }, (_, f) => {
      const body = Array.from({ length: 200 }, (_, i) => `-old ${f} ${i} ${"x".repeat(10)}\n+new ${f} ${i} ${"y".repeat(10)}`).join("\n");
      return `diff --git a/f${f}.txt b/f${f}.txt\n--- a/f${f}.txt\n+++ b/f${f}.txt\n@@ -1,200 +1,200 @@\n${body}`;
    });
    const diff = files.join("\n");
    expect(diff.length).toBeGreaterThan(256 * 1024 * 0.9);
    const started = performance.now();
    const { container } = render(Diff, { diff });
    await waitFor(() => expect(container.querySelectorAll("[data-diff-file]")).toHaveLength(40), { timeout: 5000 });
    await waitFor(() => expect(container.querySelectorAll(".d2h-file-wrapper").length).toBeGreaterThan(0));
    expect(container.querySelectorAll(".d2h-file-wrapper").length).toBeLessThan(5);
    expect(performance.now() - started).toBeLessThan(4000);
  });
});
