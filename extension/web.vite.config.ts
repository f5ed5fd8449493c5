import { svelte, vitePreprocess } from "@sveltejs/vite-plugin-svelte";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
// Vite bundles the config with the files it imports by path, so the generated TypeScript is read as code.
import { REVISION } from "../shared/src/generated/revision.ts";

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
    {
      // The service worker is copied as it is: the revision it names is the inbox's, written in here.
      name: "loopback:worker-revision",
      apply: "build",
      closeBundle: () => {
        const path = here(".output/web/sw.js");
        const text = readFileSync(path, "utf8");
        if (!text.includes("__LOOPBACK_REVISION__")) throw new Error("sw.js no longer names __LOOPBACK_REVISION__ for its revision");
        writeFileSync(path, text.replaceAll("__LOOPBACK_REVISION__", REVISION));
      },
    },
  ],
  build: { outDir: here(".output/web"), emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1200 },
  server: { port: 5174 },
});
