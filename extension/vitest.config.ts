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
    // One module graph and environment per worker, not per file: setting both up again for each of the
    // files took ~80 of the run's ~95 s. So no file may leave a global changed (see the files that stub one).
    isolate: false,
  },
});
