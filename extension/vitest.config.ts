import { svelte } from "@sveltejs/vite-plugin-svelte";
import { svelteTesting } from "@testing-library/svelte/vite";
import { defineConfig } from "vitest/config";
import { WxtVitest } from "wxt/testing/vitest-plugin";

export default defineConfig({
  plugins: [WxtVitest(), svelte({ configFile: false }), svelteTesting()],
  test: {
    environment: "happy-dom",
    // Not *.test.ts: `bun test` at the repo root would pick those up and fail on .svelte imports.
    include: ["src/**/*.vitest.ts", "entrypoints/**/*.vitest.ts", "web/**/*.vitest.ts"],
    restoreMocks: true,
  },
});
