import { describe, expect, it, vi } from "vitest";
import { LineCursor } from "./line-cursor.svelte";

const press = (cursor: LineCursor<number>, key: string, lines = [1, 2, 3], init: KeyboardEventInit = {}) => {
  const event = new KeyboardEvent("keydown", { key, cancelable: true, ...init });
  cursor.onkeydown(event, lines);
  return event.defaultPrevented;
};

describe("the keyboard's place among a block's lines", () => {
  it("starts on the first line, moves with the arrows and stops at the ends", () => {
    const cursor = new LineCursor<number>((a, b) => a === b, () => {});
    expect(press(cursor, "ArrowUp")).toBe(true);
    expect(cursor.at).toBe(1);
    press(cursor, "ArrowDown");
    press(cursor, "ArrowDown");
    press(cursor, "ArrowDown");
    expect(cursor.at).toBe(3);
    press(cursor, "ArrowUp");
    expect(cursor.at).toBe(2);
  });

  it("comments with c on the line it is on, or the first before it has moved, and a click moves it", () => {
    const comment = vi.fn();
    const cursor = new LineCursor<number>((a, b) => a === b, comment);
    press(cursor, "c");
    expect(comment).toHaveBeenLastCalledWith(1);
    cursor.pick(3);
    expect(cursor.at).toBe(3);
    expect(comment).toHaveBeenLastCalledWith(3);
    press(cursor, "ArrowUp");
    press(cursor, "c");
    expect(comment).toHaveBeenLastCalledWith(2);
  });

  it("starts over in a listing its place is not in, and leaves keys with a modifier alone", () => {
    const comment = vi.fn();
    const cursor = new LineCursor<number>((a, b) => a === b, comment);
    cursor.pick(3);
    press(cursor, "c", [7, 8]);
    expect(comment).toHaveBeenLastCalledWith(7);
    expect(press(cursor, "ArrowDown", [7, 8], { ctrlKey: true })).toBe(false);
    expect(cursor.at).toBe(7);
  });
});
