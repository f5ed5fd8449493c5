import { describe, expect, test } from "bun:test";
import { parse } from "diff2html";
import { readTouches } from "./touches.ts";

describe("readTouches", () => {
  test("a shell command is the command, where it runs and what the agent says it does", () => {
    expect(readTouches("Bash", { command: "rm -rf build", description: "Clean the build" }, "/home/ana/shop")).toEqual({
      type: "command",
      command: "rm -rf build",
      cwd: "/home/ana/shop",
      description: "Clean the build",
    });
  });

  test("an edit is the diff it makes, with the lines it changes as removed and added", () => {
    const touch = readTouches("Edit", { file_path: "src/auth.ts", old_string: "const ttl = 60;\nexport { ttl };", new_string: "const ttl = 3600;\nexport { ttl };" });
    expect(touch.type).toBe("edit");
    if (touch.type !== "edit") return;
    const [file] = parse(touch.diff);
    expect(file.newName).toBe("src/auth.ts");
    const lines = file.blocks.flatMap((b) => b.lines.map((l) => l.content));
    expect(lines).toEqual(["-const ttl = 60;", "+const ttl = 3600;", " export { ttl };"]);
  });

  test("a change within one line without a newline reads as that line changed", () => {
    const touch = readTouches("Edit", { file_path: "a.ts", old_string: "x = 1", new_string: "x = 2" });
    expect(touch.type === "edit" && touch.diff).not.toContain("No newline");
  });

  test("several edits of one file are each a part of the diff", () => {
    const touch = readTouches("MultiEdit", { file_path: "a.ts", edits: [{ old_string: "a", new_string: "b" }, { old_string: "c", new_string: "d" }] });
    expect(touch.type === "edit" && parse(touch.diff).length).toBe(2);
  });

  test("a file written whole is its path and content", () => {
    expect(readTouches("Write", { file_path: "/tmp/new.md", content: "# New\n" })).toEqual({ type: "write", file: "/tmp/new.md", content: "# New\n" });
  });

  test("a fetch is its address", () => {
    expect(readTouches("WebFetch", { url: "https://example.com/a", prompt: "Summarise" })).toEqual({ type: "fetch", url: "https://example.com/a" });
  });

  test("any other tool, or a known tool whose input lacks what it needs, is shown by its input", () => {
    expect(readTouches("mcp__github__create_issue", { title: "Bug" })).toEqual({ type: "other" });
    expect(readTouches("Bash", { command: "" })).toEqual({ type: "other" });
    expect(readTouches("Edit", { file_path: "a.ts", old_string: 1 })).toEqual({ type: "other" });
    expect(readTouches("Edit", { file_path: "a.ts", old_string: "same", new_string: "same" })).toEqual({ type: "other" });
  });
});
