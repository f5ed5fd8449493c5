// Tickets and images live in the database the replicas share: an upload ticket issued on one
// replica takes its image on another, the image is read (and named in an ask) on a third, and an
// event ticket issued on one opens the socket on another, once, whichever replica is tried next.
import { describe, expect, test } from "bun:test";
import { EventSocket } from "../support/person.ts";
import { Replicas, withReplicas } from "../support/replicas.ts";
import { newProject, openedAsk, running } from "../support/scene.ts";
import { PNG, put, uploadTicket } from "../relay/upload-image.ts";

describe.each([2, 3])("%i replicas on one database", (count) => {
  let r: Replicas;
  let personToken: string;
  let agentToken: string;
  withReplicas(count, (started) => ({ r, personToken, agentToken } = started));

  /** The same URL on replica `i` instead of the host it names. */
  const on = (url: string, i: number) => new URL(new URL(url).pathname, r.urlOf(i)).toString();

  test("an upload ticket issued on one replica takes the image on another; every replica serves it and an ask on any can show it", async () => {
    const [issuer, taker, third] = [0, 1, 2 % count];
    const agents = [await r.agent(agentToken, issuer), await r.agent(agentToken, third)];
    const ticket = await uploadTicket(agents[0]);
    // The ticket's URL names the balancer (LOOPBACK_PUBLIC_URL), as agents are told.
    expect(new URL(ticket.uploadUrl).origin).toBe(r.url);
    const stored = await put(on(ticket.uploadUrl, taker), PNG);
    expect([stored.status, stored.body]).toEqual([201, { uploadId: ticket.uploadId, contentType: "image/png", size: PNG.length }]);
    for (let i = 0; i < count; i++) {
      const file = await r.person(personToken, i).api("GET", `/files/${ticket.uploadId}`);
      expect({ replica: i, status: file.status, type: file.headers.get("content-type") }).toEqual({ replica: i, status: 200, type: "image/png" });
      expect(new Uint8Array(file.body)).toEqual(PNG);
    }
    // Spent on one replica, spent on all.
    for (let i = 0; i < count; i++) {
      const again = await put(on(ticket.uploadUrl, i), PNG);
      expect({ replica: i, status: again.status, code: again.body.code }).toEqual({ replica: i, status: 410, code: "upload.used" });
    }
    // A review on a third replica names the image the second stored.
    const project = newProject();
    const call = running(agents[1].call("request_review", { title: "Screens", content: [{ type: "image", uploadId: ticket.uploadId, caption: "After" }], project }));
    const ask = await openedAsk(r.person(personToken, issuer), project, call);
    expect(ask.kind === "review" && ask.prompt.content).toEqual([expect.objectContaining({ type: "image", uploadId: ticket.uploadId })]);
    expect((await r.person(personToken, taker).reply(ask.id, { outcome: "approved" })).status).toBe(200);
    expect((await call).isError ?? false).toBe(false);
    await Promise.all(agents.map((a) => a.close()));
  }, 30_000);

  test("an event ticket issued on one replica opens the socket on another, and no replica takes it again", async () => {
    for (let issuer = 0; issuer < count; issuer++) {
      const redeemer = (issuer + 1) % count;
      const { body } = await r.person(personToken, issuer).api("POST", "/events/tickets");
      const protocols = ["loopback.v1", `loopback.ticket.${body.ticket}`];
      const socket = await EventSocket.open(r.urlOf(redeemer), protocols);
      expect((await socket.next()).type).toBe("snapshot");
      for (let i = 0; i < count; i++) {
        const again = await EventSocket.open(r.urlOf(i), protocols).then(
          (s) => (s.close(), 101),
          (e: { status?: number }) => e.status,
        );
        expect({ issuer, tried: i, status: again }).toEqual({ issuer, tried: i, status: 401 });
      }
      socket.close();
    }
  }, 30_000);
});
