import { render, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import Code from "./Code.svelte";
import { HIGHLIGHT_LIMIT_CHARS, HIGHLIGHT_STEP_LINES, highlight, resolveLanguage } from "./highlight";

describe("code", () => {
  it("finds the grammar from a language name, an alias, or the file name", () => {
    expect(resolveLanguage("ts")).toBe("typescript");
    expect(resolveLanguage("Python")).toBe("python");
    expect(resolveLanguage(undefined, "src/main.rs")).toBe("rust");
    expect(resolveLanguage(undefined, "Dockerfile")).toBe("dockerfile");
    expect(resolveLanguage("brainfuck", "x.unknown")).toBeNull();
    for (const name of ["constructor", "__proto__", "toString"]) {
      expect(resolveLanguage(name)).toBeNull();
      expect(resolveLanguage(undefined, `x.${name}`)).toBeNull();
    }
  });

  it("shows the code at once as plain text, then highlighted", async () => {
    const code = 'const answer: number = 42;\nexport default answer;';
    const { container } = render(Code, { code, language: "ts", filename: "answer.ts" });
    expect(screen.getByText("answer.ts")).toBeTruthy();
    expect(screen.getByText("2 lines")).toBeTruthy();
    expect(container.querySelector("pre.plain")?.textContent).toBe(code);
    await waitFor(() => expect(container.querySelector(".highlighted pre.shiki")).not.toBeNull(), { timeout: 5000 });
    const highlighted = container.querySelector(".highlighted")!;
    expect(highlighted.textContent).toContain("const answer");
    // Both themes ride along as CSS variables; the stylesheet picks one by colour scheme.
    expect(highlighted.querySelector("span[style*='--shiki-dark']")).not.toBeNull();
  });

  it("highlights a long file a step at a time, keeping every line in place, and the same code again at once", async () => {
    const count = HIGHLIGHT_STEP_LINES * 3 + 7;
    // A template literal that spans a step boundary: the grammar's state must carry across.
    const code = Array.from({ length: count }, (_, i) => (i === HIGHLIGHT_STEP_LINES - 1 ? "const s = `open" : i === HIGHLIGHT_STEP_LINES ? "still in the string`;" : `const line${i} = ${i};`)).join("\n");
    const seen: number[] = [];
    const result = await highlight(code, "typescript", (progress) => void seen.push(progress.lines));
    expect(seen).toEqual([HIGHLIGHT_STEP_LINES, HIGHLIGHT_STEP_LINES * 2, HIGHLIGHT_STEP_LINES * 3, count]);
    expect(result!.done).toBe(true);
    const div = document.createElement("div");
    div.innerHTML = `<pre><code>${result!.steps.join("\n")}</code></pre>`;
    expect(div.textContent).toBe(code);
    const lines = div.querySelectorAll(".line");
    expect(lines).toHaveLength(count);
    // The line after the boundary opens in the string's colour, as the line before it ends.
    const spans = (i: number) => [...lines[i]!.querySelectorAll("span")].map((span) => span.getAttribute("style"));
    expect(spans(HIGHLIGHT_STEP_LINES)[0]).toBe(spans(HIGHLIGHT_STEP_LINES - 1).at(-1));
    expect(spans(HIGHLIGHT_STEP_LINES)[0]).not.toBe(spans(0)[0]);

    const again: number[] = [];
    expect(await highlight(code, "typescript", (progress) => void again.push(progress.lines))).toBe(result);
    expect(again).toEqual([count]);
  });

  it("counts a file's lines without the newline that ends it, and numbers each", () => {
    const code = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const { container } = render(Code, { code, language: "brainfuck" });
    expect(screen.getByText("60 lines")).toBeTruthy();
    expect(container.querySelectorAll("pre.plain .line")).toHaveLength(60);
    expect(container.querySelector("[data-more-lines]")).toBeNull();
  });

  it("folds a long block behind a control that says how many more lines there are", async () => {
    const code = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n");
    const { container } = render(Code, { code, language: "brainfuck" });
    const more = container.querySelector<HTMLButtonElement>("[data-more-lines]")!;
    expect(more.textContent).toContain("Show 120 more lines");
    expect(container.querySelector(".lines.folded")).not.toBeNull();
    more.click();
    await waitFor(() => expect(container.querySelector(".lines.folded")).toBeNull());
  });

  it("escapes code that looks like HTML", async () => {
    const { container } = render(Code, { code: '<img src=x onerror="alert(1)">', language: "html" });
    await waitFor(() => expect(container.querySelector(".highlighted")).not.toBeNull(), { timeout: 5000 });
    expect(container.querySelector(".highlighted img")).toBeNull();
    expect(container.textContent).toContain("<img src=x");
  });

  it("stays plain for an unknown language or code too large to highlight quickly", async () => {
    expect(await highlight("x", null)).toBeNull();
    expect(await highlight("x", "constructor")).toBeNull();
    expect(await highlight("x".repeat(HIGHLIGHT_LIMIT_CHARS + 1), "typescript")).toBeNull();
    const { container } = render(Code, { code: "++++[>++<-]", language: "brainfuck" });
    await new Promise((r) => setTimeout(r, 50));
    expect(container.querySelector("pre.plain")?.textContent).toBe("++++[>++<-]");
  });
});
