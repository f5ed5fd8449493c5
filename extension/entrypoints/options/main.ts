import { mount } from "svelte";
import "../../src/ui/theme.css";
import Options from "./Options.svelte";

mount(Options, { target: document.getElementById("app")! });
