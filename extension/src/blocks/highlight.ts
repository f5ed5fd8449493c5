import type { HighlighterCore, LanguageRegistration, ThemeRegistration } from "shiki/core";

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
  const fromName = (name: string) => {
    const key = name.toLowerCase();
    return key in LANGUAGES ? key : (ALIASES[key] ?? null);
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

let highlighter: Promise<HighlighterCore> | null = null;
const loaded = new Map<string, Promise<void>>();

function getHighlighter(): Promise<HighlighterCore> {
  highlighter ??= (async () => {
    const [{ createHighlighterCore }, { createJavaScriptRegexEngine }, light, dark] = await Promise.all([
      import("shiki/core"),
      import("shiki/engine/javascript"),
      import("shiki/themes/github-light.mjs") as Promise<{ default: ThemeRegistration }>,
      import("shiki/themes/github-dark.mjs") as Promise<{ default: ThemeRegistration }>,
    ]);
    return createHighlighterCore({
      themes: [light.default, dark.default],
      langs: [],
      engine: createJavaScriptRegexEngine({ forgiving: true }),
    });
  })();
  return highlighter;
}

/**
 * The code as highlighted HTML with both themes as CSS variables (the stylesheet picks one by
 * colour scheme), or null when it is too large or no grammar fits.
 */
export async function highlight(code: string, language: string | null): Promise<string | null> {
  if (!language || !(language in LANGUAGES) || code.length > HIGHLIGHT_LIMIT_CHARS) return null;
  const core = await getHighlighter();
  let loading = loaded.get(language);
  if (!loading) {
    loading = LANGUAGES[language]!().then((mod) => core.loadLanguage(mod.default));
    loaded.set(language, loading);
  }
  await loading;
  return core.codeToHtml(code, {
    lang: language,
    themes: { light: "github-light", dark: "github-dark" },
    defaultColor: false,
  });
}
