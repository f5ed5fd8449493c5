// Every response names the code that answered it; a client newer than the relay is told to reload.
import { REVISION } from "@loopback/shared/generated/revision";
import { problem } from "@loopback/shared/problems";
import { BUILD_HEADER, REVISION_HEADER } from "@loopback/shared/wire-names";

export const revisionHeaders = (build: string) => ({ [REVISION_HEADER]: REVISION, [BUILD_HEADER]: build });

/** Refuses a request whose client writes a newer revision than this relay: it was rolled back. */
export function assertNotNewer(request: Request): void {
  const theirs = Number(request.headers.get(REVISION_HEADER));
  if (Number.isInteger(theirs) && theirs > Number(REVISION)) {
    throw problem("reload", `Your client writes revision ${theirs}; this relay writes ${REVISION}.`);
  }
}
