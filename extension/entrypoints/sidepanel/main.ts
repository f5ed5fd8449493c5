import { mount } from "svelte";
import "../../src/ui/theme.css";
import PanelApp from "./PanelApp.svelte";

mount(PanelApp, { target: document.getElementById("app")! });
