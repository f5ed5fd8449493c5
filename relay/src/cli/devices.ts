// `device list` and `device remove`: the operator's view of whom the relay pushes to.
import type { Config } from "../config.ts";
import { fail } from "./fail.ts";
import { withStore } from "./with-store.ts";

export function deviceList(config: Config): Promise<void> {
  return withStore(config, async (store) => {
    for (const d of await store.push.listDevices()) {
      const pushed = d.lastPushAt ? `  pushed ${d.lastPushAt}` : "";
      console.log(`${d.id}  ${d.space}/${d.person}  "${d.name}"  ${new URL(d.endpoint).host}  token ${d.tokenId ?? "-"}  created ${d.createdAt}${pushed}`);
    }
  });
}

export function deviceRemove(config: Config, id: string): Promise<void> {
  return withStore(config, async (store) => {
    if (!(await store.push.forgetDevice(id))) fail(`No device ${id}`);
    console.log(`Removed ${id}`);
  });
}
