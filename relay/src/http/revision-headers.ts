// Every response names the code that answered it; a client newer than the relay is told to reload.
import { REVISION } from "@loopback/shared/generated/revision";
import { problem } from "@loopback/shared/problems";

export const revisionHeaders = (build: string) => ({ "Loopback-Revision": REVISION, "Loopback-Build": build });

/** Refuses a request whose client writes a newer revision than this relay: it was rolled back. */
export function assertNotNewer(request: Request): void {
  const theirs = Number(request.headers.get("loopback-revision"));
  if (Number.isInteger(theirs) && theirs > Number(REVISION)) {
    throw problem("reload", `Your client writes revision ${theirs}; this relay writes ${REVISION}.`);
  }
}
