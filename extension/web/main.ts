import { mount } from "svelte";
import "../src/ui/theme.css";
import WebApp from "./WebApp.svelte";

mount(WebApp, { target: document.getElementById("app")! });

if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("./sw.js").catch(() => {});
}
