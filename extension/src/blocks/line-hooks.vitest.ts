import { fireEvent, render } from "@testing-library/svelte";
import { createRawSnippet } from "svelte";
import { describe, expect, it, vi } from "vitest";
import Code from "./Code.svelte";

const code = "one\ntwo\nthree\nfour";
const note = createRawSnippet((line: () => number) => ({ render: () => `<p class="note">beneath ${line()}</p>` }));

describe("a renderer's line hooks", () => {
  it("draws what a layer puts beneath a line right after that line, and beneath the last for lines past the end", () => {
    const { container } = render(Code, { code, language: "brainfuck", belowLines: [2, 9], below: note });
    const runs = [...container.querySelectorAll("pre.run")].map((pre) => [pre.textContent, pre.nextElementSibling?.textContent ?? null]);
    expect(runs).toEqual([
      ["one\ntwo", "beneath 2"],
      ["three\nfour", "beneath 9"],
    ]);
  });

  it("says which line was picked, but not for a click on what is beneath a line", async () => {
    const onpick = vi.fn();
    const { container } = render(Code, { code, language: "brainfuck", belowLines: [2], below: note, onpick });
    await fireEvent.click(container.querySelectorAll("pre.run [data-from]")[1]!);
    expect(onpick).toHaveBeenCalledWith(3);
    await fireEvent.click(container.querySelector(".note")!);
    expect(onpick).toHaveBeenCalledTimes(1);
  });

  it("makes the listing one named group that hands on its keys with the lines in order, and marks a line", async () => {
    const onkeydown = vi.fn();
    const { container } = render(Code, { code, language: "brainfuck", filename: "n.txt", marked: 2, keys: { label: (name: string) => `${name}: walk it`, onkeydown } });
    const lines = container.querySelector<HTMLElement>(".lines")!;
    expect([lines.getAttribute("role"), lines.getAttribute("aria-label"), lines.tabIndex]).toEqual(["group", "n.txt: walk it", 0]);
    await fireEvent.keyDown(lines, { key: "ArrowDown" });
    expect(onkeydown.mock.calls[0]![1]).toEqual([1, 2, 3, 4]);
    expect(container.querySelector(".lb-marked")?.textContent).toBe("two");
    expect(container.querySelector("figcaption")!.textContent).toContain("line 2");
  });

  it("given no hooks, only shows the code", () => {
    const { container } = render(Code, { code, language: "brainfuck" });
    const lines = container.querySelector<HTMLElement>(".lines")!;
    expect([lines.getAttribute("role"), lines.getAttribute("tabindex"), container.querySelector(".pickable, .lb-marked, pre.run")]).toEqual([null, null, null]);
  });
});
