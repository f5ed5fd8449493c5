// @vitest-environment jsdom
// DOMPurify leans on a spec-true DOM parser; happy-dom's lets handlers through, so this file runs on
// jsdom, the closest stand-in for the browser the panel really runs in.
import { render } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import Markdown from "./Markdown.svelte";
import { renderMarkdown } from "./markdown";

const dom = (text: string) => {
  const div = document.createElement("div");
  div.innerHTML = renderMarkdown(text);
  return div;
};

describe("markdown", () => {
  it("renders GitHub-flavoured markdown: tables, task lists, strikethrough", () => {
    const html = dom("| a | b |\n| - | - |\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~gone~~");
    expect(html.querySelectorAll("td")).toHaveLength(2);
    const boxes = html.querySelectorAll("input[type=checkbox]");
    expect(boxes).toHaveLength(2);
    for (const box of boxes) expect(box.hasAttribute("disabled")).toBe(true);
    expect(html.querySelector("del")?.textContent).toBe("gone");
  });

  it("drops scripts, event handlers and inline styles", () => {
    const html = dom('<script>alert(1)</script><p onclick="steal()" style="background:url(x)">hi</p><svg onload="x()"></svg>');
    expect(html.querySelector("script")).toBeNull();
    expect(html.querySelector("svg")).toBeNull();
    const p = html.querySelector("p")!;
    expect(p.textContent).toBe("hi");
    expect(p.getAttribute("onclick")).toBeNull();
    expect(p.getAttribute("style")).toBeNull();
  });

  it("shows HTML in the person's own words as the characters they typed, beside rendered markdown", () => {
    const html = renderMarkdown("Wrap it in <Suspense> and **<img src=x onerror=alert(1)>**", { htmlAsText: true });
    const el = document.createElement("div");
    el.innerHTML = html;
    expect(el.textContent?.trim()).toBe("Wrap it in <Suspense> and <img src=x onerror=alert(1)>");
    expect(el.querySelector("strong")?.textContent).toBe("<img src=x onerror=alert(1)>");
    expect(el.querySelector("img, suspense")).toBeNull();
  });

  it("keeps only http(s) links, opened in a new tab without an opener or referrer", () => {
    const html = dom(
      '[ok](https://example.com/x) [bad](javascript:alert(1)) [data](data:text/html,hi) <a href="vbscript:x">v</a> <a href="JaVaScRiPt:alert(1)">caps</a> [rel](/local)',
    );
    const links = [...html.querySelectorAll("a")];
    const ok = links.find((a) => a.textContent === "ok")!;
    expect(ok.getAttribute("href")).toBe("https://example.com/x");
    expect(ok.getAttribute("target")).toBe("_blank");
    expect(ok.getAttribute("rel")).toBe("noopener noreferrer");
    for (const name of ["bad", "data", "v", "caps", "rel"]) {
      const link = links.find((a) => a.textContent === name);
      expect(link?.getAttribute("href") ?? null).toBeNull();
    }
  });

  it("never loads remote images: a markdown image becomes a link, raw <img> is removed", () => {
    const html = dom('![diagram](https://example.com/d.png)\n\n<img src="https://tracker.example/p.gif" onerror="x()">');
    expect(html.querySelector("img")).toBeNull();
    const link = html.querySelector("a")!;
    expect(link.getAttribute("href")).toBe("https://example.com/d.png");
    expect(link.textContent).toContain("diagram");
  });

  it("drops the legacy background attribute, which still fetches its image", () => {
    const html = dom('<table background="https://tracker.example/t.gif"><tr><td background="https://tracker.example/d.gif">cell</td></tr></table>');
    expect(html.querySelector("td")?.textContent).toBe("cell");
    expect(html.querySelector("[background]")).toBeNull();
  });

  it("removes forms and iframes that could phish from inside the panel", () => {
    const html = dom('<form action="https://evil"><input type="password"><button>go</button></form><iframe src="https://x"></iframe>');
    expect(html.querySelector("form, iframe, button, input[type=password]")).toBeNull();
  });

  it("keeps no class but a code fence's language, and no id, data attribute, dialog or popover: agent markup cannot borrow the app's look or place", () => {
    const html = dom(
      '<a class="help-backdrop svelte-1x2y3z" href="https://evil.example/cover">cover</a> <a class="btn primary" href="https://evil.example/a">Approve</a>' +
        '<p id="app" data-ask="x" data-connection="live" class="bar">p</p><div popover>pop</div><dialog open>fake</dialog><code class="language-ts svelte-1x2y3z">c</code><code class="language-ts">d</code>',
    );
    expect([...html.querySelectorAll("[class]")].map((el) => el.outerHTML)).toEqual(['<code class="language-ts">d</code>']);
    expect(html.querySelector("[id], [data-ask], [data-connection], [popover], dialog")).toBeNull();
    expect(html.textContent).toContain("fake");
    expect([...html.querySelectorAll("a")].map((a) => a.textContent)).toEqual(["cover", "Approve"]);
  });

  it("keeps a fenced block's language class", () => {
    expect(dom("```ts\nconst a = 1;\n```").querySelector("code")?.className).toBe("language-ts");
  });

  it("renders as a component", () => {
    const { container } = render(Markdown, { text: "**bold** and `code`" });
    expect(container.querySelector("strong")?.textContent).toBe("bold");
    expect(container.querySelector("code")?.textContent).toBe("code");
  });
});
