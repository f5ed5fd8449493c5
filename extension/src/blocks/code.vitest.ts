import { render, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import Code from "./Code.svelte";
import { HIGHLIGHT_LIMIT_CHARS, highlight, resolveLanguage } from "./highlight";

describe("code", () => {
  it("finds the grammar from a language name, an alias, or the file name", () => {
    expect(resolveLanguage("ts")).toBe("typescript");
    expect(resolveLanguage("Python")).toBe("python");
    expect(resolveLanguage(undefined, "src/main.rs")).toBe("rust");
    expect(resolveLanguage(undefined, "Dockerfile")).toBe("dockerfile");
    expect(resolveLanguage("brainfuck", "x.unknown")).toBeNull();
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

  it("escapes code that looks like HTML", async () => {
    const { container } = render(Code, { code: '<img src=x onerror="alert(1)">', language: "html" });
    await waitFor(() => expect(container.querySelector(".highlighted")).not.toBeNull(), { timeout: 5000 });
    expect(container.querySelector(".highlighted img")).toBeNull();
    expect(container.textContent).toContain("<img src=x");
  });

  it("stays plain for an unknown language or code too large to highlight quickly", async () => {
    expect(await highlight("x", null)).toBeNull();
    expect(await highlight("x".repeat(HIGHLIGHT_LIMIT_CHARS + 1), "typescript")).toBeNull();
    const { container } = render(Code, { code: "++++[>++<-]", language: "brainfuck" });
    await new Promise((r) => setTimeout(r, 50));
    expect(container.querySelector("pre.plain")?.textContent).toBe("++++[>++<-]");
  });
});
