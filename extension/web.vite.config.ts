import { svelte, vitePreprocess } from "@sveltejs/vite-plugin-svelte";
import { cpSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The web inbox: the side panel's Svelte code as a page the relay serves at /inbox/, so every
// asset is addressed relative to it.
export default defineConfig({
  root: here("web"),
  base: "./",
  publicDir: here("web/public"),
  plugins: [
    svelte({ configFile: false, preprocess: [vitePreprocess()] }),
    {
      name: "loopback:icons",
      apply: "build",
      closeBundle: () => cpSync(here("public/icon"), here(".output/web/icon"), { recursive: true }),
    },
  ],
  build: { outDir: here(".output/web"), emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1200 },
  server: { port: 5174 },
});
