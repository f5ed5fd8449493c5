import js from "@eslint/js";
import svelte from "eslint-plugin-svelte";
import globals from "globals";
import ts from "typescript-eslint";

export default ts.config(
  {
    ignores: [
      "**/node_modules/",
      "shared/src/generated/",
      "**/.output/",
      "**/.wxt/",
      "**/dist/",
      "**/.loopback/",
      "**/.tsp-out/",
      "revisions/",
    ],
  },
  js.configs.recommended,
  ts.configs.recommended,
  svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node, Bun: "readonly" } },
  },
  {
    files: ["**/*.svelte", "**/*.svelte.ts"],
    languageOptions: { parserOptions: { parser: ts.parser, extraFileExtensions: [".svelte"] } },
  },
  {
    rules: {
      // `any` marks untyped JSON at a boundary (a stored older revision, a reply a test reads), checked next by a validator or an assertion.
      "@typescript-eslint/no-explicit-any": "off",
      // A rest pattern is how a field is left out of a copy; a leading `_` names a parameter a signature demands.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
      // A catch left empty means "not ours to handle" (a retry loop, a foreign payload); the line after it says what follows.
      "no-empty": ["error", { allowEmptyCatch: true }],
      // It flags local scratch collections and module caches too; what the UI reads reactively is a SvelteMap or $state by choice.
      "svelte/prefer-svelte-reactivity": "off",
    },
  },
  {
    files: ["extension/src/blocks/**/*.svelte"],
    // Each {@html} here shows DOMPurify's output (markdown) or shiki's and diff2html's, which escape the text; the browser XSS test holds that.
    rules: { "svelte/no-at-html-tags": "off" },
  },
  {
    files: ["tests/**"],
    rules: {
      // Tests strip terminal colours and NUL bytes from what they read, on purpose.
      "no-control-regex": "off",
      // Scripts that drive the extension take chrome's types from the one declaration file tests/browser keeps.
      "@typescript-eslint/triple-slash-reference": "off",
    },
  },
);
