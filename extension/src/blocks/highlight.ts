import type { GrammarState, HighlighterCore, LanguageRegistration, ThemeRegistration } from "shiki/core";

type Loader<T> = () => Promise<{ default: T }>;

// Everything is bundled (MV3 forbids remote code), and each grammar is its own chunk, loaded on first use.
const LANGUAGES: Record<string, Loader<LanguageRegistration[]>> = {
  bash: () => import("shiki/langs/bash.mjs"),
  c: () => import("shiki/langs/c.mjs"),
  cpp: () => import("shiki/langs/cpp.mjs"),
  csharp: () => import("shiki/langs/csharp.mjs"),
  css: () => import("shiki/langs/css.mjs"),
  diff: () => import("shiki/langs/diff.mjs"),
  dockerfile: () => import("shiki/langs/dockerfile.mjs"),
  go: () => import("shiki/langs/go.mjs"),
  html: () => import("shiki/langs/html.mjs"),
  java: () => import("shiki/langs/java.mjs"),
  javascript: () => import("shiki/langs/javascript.mjs"),
  json: () => import("shiki/langs/json.mjs"),
  jsx: () => import("shiki/langs/jsx.mjs"),
  kotlin: () => import("shiki/langs/kotlin.mjs"),
  make: () => import("shiki/langs/make.mjs"),
  php: () => import("shiki/langs/php.mjs"),
  python: () => import("shiki/langs/python.mjs"),
  ruby: () => import("shiki/langs/ruby.mjs"),
  rust: () => import("shiki/langs/rust.mjs"),
  sql: () => import("shiki/langs/sql.mjs"),
  svelte: () => import("shiki/langs/svelte.mjs"),
  swift: () => import("shiki/langs/swift.mjs"),
  toml: () => import("shiki/langs/toml.mjs"),
  tsx: () => import("shiki/langs/tsx.mjs"),
  typescript: () => import("shiki/langs/typescript.mjs"),
  vue: () => import("shiki/langs/vue.mjs"),
  yaml: () => import("shiki/langs/yaml.mjs"),
};

const ALIASES: Record<string, string> = {
  ts: "typescript", mts: "typescript", cts: "typescript", js: "javascript", mjs: "javascript", cjs: "javascript",
  py: "python", rs: "rust", rb: "ruby", sh: "bash", shell: "bash", zsh: "bash", console: "bash", yml: "yaml",
  "c++": "cpp", cc: "cpp", h: "c", hpp: "cpp", cs: "csharp", kt: "kotlin", golang: "go", htm: "html",
  makefile: "make", docker: "dockerfile", patch: "diff", jsonc: "json",
};

/** Above this, highlighting would stall the panel; the code shows plain instead. */
export const HIGHLIGHT_LIMIT_CHARS = 100_000;

/** The grammar for a language name or a file name, if one is bundled. */
export function resolveLanguage(language?: string, filename?: string): string | null {
  // Own keys only: an agent's "constructor" or "__proto__" must not find Object.prototype.
  const fromName = (name: string) => {
    const key = name.toLowerCase();
    if (Object.hasOwn(LANGUAGES, key)) return key;
    return Object.hasOwn(ALIASES, key) ? ALIASES[key]! : null;
  };
  if (language) {
    const found = fromName(language);
    if (found) return found;
  }
  if (filename) {
    const base = filename.split("/").at(-1)!.toLowerCase();
    if (base === "dockerfile" || base === "makefile") return fromName(base);
    const ext = base.includes(".") ? base.split(".").at(-1)! : "";
    if (ext) return fromName(ext);
  }
  return null;
}

type Root = ReturnType<HighlighterCore["codeToHast"]>;
type Element = Extract<Root["children"][number], { type: "element" }>;

interface Shiki {
  core: HighlighterCore;
  toHtml: (root: Root) => string;
}

let shiki: Promise<Shiki> | null = null;
const loaded = new Map<string, Promise<void>>();

function getShiki(): Promise<Shiki> {
  shiki ??= (async () => {
    const [{ createHighlighterCore, hastToHtml }, { createJavaScriptRegexEngine }, light, dark] = await Promise.all([
      import("shiki/core"),
      import("shiki/engine/javascript"),
      import("shiki/themes/github-light-high-contrast.mjs") as Promise<{ default: ThemeRegistration }>,
      import("shiki/themes/github-dark-default.mjs") as Promise<{ default: ThemeRegistration }>,
    ]);
    // The two GitHub themes whose every token colour reads at 4.5:1 or more on --code-bg.
    const core = await createHighlighterCore({
      themes: [light.default, dark.default],
      langs: [],
      engine: createJavaScriptRegexEngine({ forgiving: true }),
    });
    return { core, toHtml: hastToHtml };
  })();
  return shiki;
}

/** Lines highlighted in one step: more than a code block shows at once, few enough to take a few ms. */
export const HIGHLIGHT_STEP_LINES = 150;

export interface Highlight {
  /** The themes' colours as CSS variables, for the `<pre>` around the lines. */
  style: string;
  /** The lines highlighted so far, one string of HTML per step of HIGHLIGHT_STEP_LINES lines. */
  steps: string[];
  /** How many lines the steps cover. */
  lines: number;
  done: boolean;
}

// Finished highlights, newest last, so reopening an ask (j/k through reviews) shows its code at once.
const CACHE_CHARS = 8_000_000;
const cache = new Map<string, Highlight>();
let cachedChars = 0;
const sizeOf = (key: string, result: Highlight) => result.steps.reduce((n, step) => n + step.length, key.length);

function remember(key: string, result: Highlight): void {
  cache.set(key, result);
  cachedChars += sizeOf(key, result);
  for (const [old, kept] of cache) {
    if (cachedChars <= CACHE_CHARS || cache.size === 1) break;
    cache.delete(old);
    cachedChars -= sizeOf(old, kept);
  }
}

// scheduler.yield where there is one: nested timeouts are clamped to 4 ms each.
const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
const nextTask = () => scheduler?.yield?.() ?? new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The code highlighted with both themes as CSS variables (the stylesheet picks one by colour
 * scheme), or null when it is too large or no grammar fits. A long file is highlighted
 * HIGHLIGHT_STEP_LINES at a time, yielding to the page between steps, so the lines in view are
 * highlighted at once and the rest never holds up the panel; `onStep` sees each step.
 */
export async function highlight(
  code: string,
  language: string | null,
  onStep?: (progress: Highlight) => void,
  signal?: AbortSignal,
): Promise<Highlight | null> {
  if (!language || !Object.hasOwn(LANGUAGES, language) || code.length > HIGHLIGHT_LIMIT_CHARS) return null;
  const key = `${language}\0${code}`;
  const cached = cache.get(key);
  if (cached) {
    cache.delete(key);
    cache.set(key, cached);
    onStep?.(cached);
    return cached;
  }
  const { core, toHtml } = await getShiki();
  let loading = loaded.get(language);
  if (!loading) {
    loading = LANGUAGES[language]!().then((mod) => core.loadLanguage(mod.default));
    loaded.set(language, loading);
  }
  await loading;

  const lines = code.split("\n");
  const progress: Highlight = { style: "", steps: [], lines: 0, done: false };
  let grammarState: GrammarState | undefined;
  while (progress.lines < lines.length) {
    if (progress.lines > 0) await nextTask();
    if (signal?.aborted) return null;
    const step = lines.slice(progress.lines, progress.lines + HIGHLIGHT_STEP_LINES);
    const root = core.codeToHast(step.join("\n"), {
      lang: language,
      themes: { light: "github-light-high-contrast", dark: "github-dark-default" },
      defaultColor: false,
      grammarState,
    });
    grammarState = core.getLastGrammarState(root);
    const pre = root.children[0] as Element;
    const inner = (pre.children[0] as Element).children;
    progress.style ||= String(pre.properties.style ?? "");
    progress.steps = [...progress.steps, toHtml({ type: "root", children: inner })];
    progress.lines += step.length;
    progress.done = progress.lines >= lines.length;
    onStep?.({ ...progress });
  }
  remember(key, progress);
  return progress;
}
