import DOMPurify, { type DOMPurify as Purifier } from "dompurify";
import { Lexer, Marked, type Token, type Tokens } from "marked";
import type { ListedAsk } from "../relay/listed-ask";
import { askTitle } from "../base/ask-labels";
import { escapeHtml } from "./markdown";

// A title sits inside a link (a list row) or a heading: only emphasis and code, never links or
// markup of its own. Raw HTML in a title is text the agent wrote, shown as written.
const inline = new Marked({
  gfm: true,
  async: false,
  tokenizer: {
    // Underscores in a title are far more often an identifier (`__init__`, `_private`) than emphasis.
    emStrong(src: string) {
      return src.startsWith("_") ? undefined : false;
    },
  },
  renderer: {
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    link({ tokens }: Tokens.Link) {
      return this.parser.parseInline(tokens);
    },
    image: ({ text }: Tokens.Image) => escapeHtml(text),
    br: () => " ",
  },
});

const TITLE_TAGS = ["code", "em", "strong", "del"];

let purifier: Purifier | null = null;

/** A line of markdown (a title) as inline HTML that is safe to insert: emphasis and code only. */
export function renderInlineMarkdown(line: string): string {
  purifier ??= DOMPurify(window);
  const html = inline.parseInline(line) as string;
  return purifier.sanitize(html, { ALLOWED_TAGS: TITLE_TAGS, ALLOWED_ATTR: [] }) as string;
}

/** The same line as plain text, for places without HTML (a system notification); needs no DOM. */
export function inlineMarkdownText(line: string): string {
  return textOf(Lexer.lexInline(line, inline.defaults)).replace(/\s+/g, " ").trim();
}

function textOf(tokens: Token[]): string {
  let out = "";
  for (const token of tokens) {
    if ("tokens" in token && token.tokens?.length) out += textOf(token.tokens);
    else if (token.type === "escape" || token.type === "codespan" || token.type === "text" || token.type === "html") out += token.text;
    else if (token.type === "image") out += token.text;
    else out += token.raw;
  }
  return out;
}

/** An ask's title as plain text, where no markup can show (a notification). */
export const askTitleText = (ask: ListedAsk) => inlineMarkdownText(askTitle(ask));
