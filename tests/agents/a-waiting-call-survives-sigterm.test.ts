// SIGTERM while the agents' calls wait, the relay started again on the same port and data.
import { eachClientWaitsAcross } from "./restart-scene.ts";

eachClientWaitsAcross("SIGTERM", (s) => s.relay.stop());
