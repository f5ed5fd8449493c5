import DOMPurify, { type DOMPurify as Purifier } from "dompurify";
import { Marked, type Tokens } from "marked";

const SAFE_LINK = /^https?:\/\//i;
const CODE_LANGUAGE = /^language-[\w+#.-]+$/;

const RENDERER = {
  // No remote images: a markdown image becomes a plain link to it, which the person may follow.
  image({ href, text }: Tokens.Image) {
    const label = escapeHtml(text || "image");
    return SAFE_LINK.test(href) ? `<a href="${escapeHtml(href)}">🖼 ${label}</a>` : `🖼 ${label}`;
  },
  // A task's read-only checkbox is whether the item is done, and says so to a screen reader.
  checkbox({ checked }: Tokens.Checkbox) {
    return `<input type="checkbox" disabled${checked ? " checked" : ""} aria-label="Done"> `;
  },
};

const marked = new Marked({ gfm: true, async: false, renderer: RENDERER });
// The person's own words: HTML in them is what they typed ("wrap it in <Suspense>"), shown as such.
const typedMarked = new Marked({ gfm: true, async: false, renderer: { ...RENDERER, html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text) } });

let purifier: Purifier | null = null;

function getPurifier(): Purifier {
  if (purifier) return purifier;
  purifier = DOMPurify(window);
  purifier.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      const href = node.getAttribute("href") ?? "";
      if (SAFE_LINK.test(href)) {
        node.setAttribute("target", "_blank");
        node.setAttribute("rel", "noopener noreferrer");
      } else {
        node.removeAttribute("href");
      }
    }
    // The app's own classes (Svelte's scoped hashes are stable per build) would let agent markup take
    // its look or its fixed positioning: the only class kept is a code fence's language.
    if (node.hasAttribute("class") && !(node.tagName === "CODE" && CODE_LANGUAGE.test(node.getAttribute("class") ?? ""))) node.removeAttribute("class");
    // GFM task lists are the only inputs allowed, and they stay read-only.
    if (node.tagName === "INPUT") {
      if (node.getAttribute("type") !== "checkbox") node.remove();
      else node.setAttribute("disabled", "");
    }
  });
  return purifier;
}

// DOMPurify tests every attribute value against this, so it must pass plain words ("checkbox",
// "language-ts"); of the values that name a scheme, it passes only http(s).
const ALLOWED_VALUE = /^(?:https?:|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;

const PURIFY_CONFIG = {
  ALLOWED_URI_REGEXP: ALLOWED_VALUE,
  // A dialog or a popover draws outside the markdown's box, over the app.
  FORBID_TAGS: ["img", "style", "form", "button", "textarea", "select", "iframe", "object", "embed", "svg", "math", "video", "audio", "picture", "source", "link", "meta", "base", "dialog"],
  // `background` on a table or cell still fetches its image in Chromium: a tracking pixel. Ids and
  // data attributes are what the app's own selectors (and its tests) find its parts by.
  FORBID_ATTR: ["style", "srcset", "src", "background", "action", "formaction", "id", "name", "popover", "popovertarget", "popovertargetaction", "anchor"],
  ALLOW_DATA_ATTR: false,
};

/**
 * GitHub-flavoured markdown as HTML that is safe to insert: no scripts, handlers, images or non-http
 * links. `htmlAsText` shows HTML in the text as the characters typed, for what the person wrote.
 */
export function renderMarkdown(text: string, { htmlAsText = false } = {}): string {
  const html = (htmlAsText ? typedMarked : marked).parse(text) as string;
  return getPurifier().sanitize(html, PURIFY_CONFIG) as string;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
