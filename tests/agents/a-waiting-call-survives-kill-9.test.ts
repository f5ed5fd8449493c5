// `kill -9` while the agents' calls wait, the relay back at once (well within 2 s) on the same port and data.
import { eachClientWaitsAcross } from "./restart-scene.ts";

eachClientWaitsAcross("kill -9", (s) => s.relay.kill9());
