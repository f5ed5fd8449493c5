// @vitest-environment jsdom
// On jsdom for the same reason as markdown.vitest.ts: DOMPurify needs a spec-true parser.
import { describe, expect, it } from "vitest";
import { inlineMarkdownText, renderInlineMarkdown } from "./inline-markdown";

const dom = (line: string) => {
  const span = document.createElement("span");
  span.innerHTML = renderInlineMarkdown(line);
  return span;
};

describe("inline markdown of titles", () => {
  it("shows code spans as code, with the identifiers in them whole", () => {
    const title = dom("Rename `sku` to `item_code`");
    expect(title.textContent).toBe("Rename sku to item_code");
    expect([...title.querySelectorAll("code")].map((c) => c.textContent)).toEqual(["sku", "item_code"]);
  });

  it("reads underscores as part of a name, not emphasis", () => {
    expect(dom("Fix __init__ and _private_name").textContent).toBe("Fix __init__ and _private_name");
    expect(dom("Fix __init__").querySelector("strong, em")).toBeNull();
  });

  it("keeps bold, italics and strikethrough", () => {
    const title = dom("**Ship** it *now*, ~~later~~");
    expect(title.querySelector("strong")?.textContent).toBe("Ship");
    expect(title.querySelector("em")?.textContent).toBe("now");
    expect(title.querySelector("del")?.textContent).toBe("later");
  });

  it("shows raw HTML as the text it is, and never a link, image or handler", () => {
    const title = dom('Swap <div> for <section> <img src=x onerror="alert(1)"> [here](https://example.com) ![pic](https://example.com/p.png)');
    expect(title.textContent).toBe('Swap <div> for <section> <img src=x onerror="alert(1)"> here pic');
    expect(title.querySelector("div, section, img, a")).toBeNull();
  });

  it("gives plain text for notifications", () => {
    expect(inlineMarkdownText("Rename `sku` to **`item_code`**")).toBe("Rename sku to item_code");
  });
});
