// Every response names the code that answered it; a client newer than the relay is told to reload.
import { REVISION, REVISIONS } from "@loopback/shared/generated/revision";
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

/**
 * The revision a client reads, which the relay answers in: the one it names in `Loopback-Revision`.
 * A client that names none, or one unknown here, is read as revision 1's: revision 1 never asked
 * clients to name theirs, so it is the one such a client can be counted on to read.
 */
export function clientRevision(request: Request): string {
  const theirs = request.headers.get("loopback-revision")?.trim();
  return theirs && (REVISIONS as readonly string[]).includes(theirs) ? theirs : REVISIONS[0];
}
