import { resolve } from "node:path";
import { defineConfig } from "wxt";

export default defineConfig({
  modules: ["@wxt-dev/module-svelte"],
  // Explicit imports keep src/ free of WXT globals, so the web inbox builds from the same files.
  imports: false,
  // Neither store reads a license from manifest.json (AMO asks for it when the add-on is submitted:
  // MIT): the add-on carries the license text itself, beside its manifest.
  hooks: {
    "build:publicAssets": (wxt, files) => {
      files.push({ absoluteSrc: resolve(wxt.config.root, "../LICENSE"), relativeDest: "LICENSE" });
    },
  },
  zip: {
    artifactTemplate: "loopback-{{version}}-{{browser}}.zip",
    sourcesTemplate: "loopback-{{version}}-sources.zip",
    // The add-on builds from the workspace: the shared package and the lockfile come with it, and
    // the other workspaces' package.json files so that `npm ci` reads the lockfile as written.
    sourcesRoot: "..",
    includeSources: ["LICENSE", "package.json", "package-lock.json", "tsconfig.json", "*/package.json", "shared/src/**", "extension/**"],
    excludeSources: ["extension/.output/**", "extension/.wxt/**", "shared/src/**/*.test.ts"],
  },
  manifest: ({ browser }) => ({
    name: "Loopback",
    description: "Answer your coding agents: questions, reviews and briefings, from a side panel.",
    permissions: [
      "storage",
      "unlimitedStorage",
      "alarms",
      "notifications",
      ...(browser === "firefox" ? [] : ["sidePanel"]),
    ],
    // The relay's origin is only known once the person types it, so it is asked for at run time.
    optional_host_permissions: ["http://*/*", "https://*/*"],
    action: { default_title: "Loopback" },
    // sidePanel.open (a notification's click opens the ask) came in Chrome 116.
    ...(browser === "firefox" ? {} : { minimum_chrome_version: "116" }),
    icons: { 16: "icon/16.png", 32: "icon/32.png", 48: "icon/48.png", 128: "icon/128.png" },
    ...(browser === "firefox"
      ? {
          // Firefox's default for MV3 pages adds upgrade-insecure-requests, which turns the event
          // socket to a relay on plain http (127.0.0.1 included) into a wss:// that cannot connect.
          content_security_policy: { extension_pages: "script-src 'self'; object-src 'self'" },
          // data_collection_permissions (AMO requires it of new add-ons) came in Firefox 140 and Firefox for Android 142.
          browser_specific_settings: {
            gecko: { id: "loopback@loopback.dev", strict_min_version: "140.0", data_collection_permissions: { required: ["none"] } },
            gecko_android: { strict_min_version: "142.0" },
          },
        }
      : {}),
  }),
});
