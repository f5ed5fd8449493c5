// Inspectors of a rendered ask that run inside the page (passed to `page.evaluate`, so each is
// self-contained): what could run script or fetch from elsewhere, RTL overrides that leak, and agent
// content that escapes its box or covers the reply controls. Each returns one line per finding.

/**
 * What in the page could run script or fetch from elsewhere: script elements not the app's own, any
 * on* attribute, javascript:/data:/vbscript: URLs, URL attributes pointing off this origin (except
 * links the person may choose to follow, opened without an opener), and elements that have no
 * business in a rendered ask. Runs in the page; returns one line per finding.
 */
export function findHazards(): string[] {
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
export function findBidiLeaks(): string[] {
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

/**
 * Where agent content sits: every element inside an agent's markdown stays in that markdown's box
 * (or scrolls inside a block of it), none is taken out of the flow, and at the centre of each of the
 * reply controls the control itself is what a click hits. Runs in the page; one line per finding.
 */
export function findEscapes(askId: string): string[] {
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
  // The reply form, and the dock at the bottom of the ask that holds its send buttons.
  const controls = [...article.querySelectorAll(":is(.composer-wrap, [data-ask-dock]) :is(button, textarea, input)")] as HTMLElement[];
  if (article.getAttribute("data-status") === "awaiting_human" && !controls.length) found.push("no reply controls to check");
  for (const control of controls) {
    control.scrollIntoView({ block: "center" });
    const r = control.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === control || control.contains(hit))) found.push(`${show(hit ?? document.body)} covers the control ${show(control)}`);
  }
  return found;
}
