// The names on the wire that are not shapes, for both ends to import: the event socket's
// subprotocols and the headers that name the code behind every answer (spec/main.tsp describes them).

/** The event socket's subprotocol: a client offers it, the relay answers with it. */
export const EVENTS_SUBPROTOCOL = "loopback.v1";
/** Offered as `loopback.ticket.<ticket>` beside `EVENTS_SUBPROTOCOL` by a client that cannot set headers. */
export const TICKET_SUBPROTOCOL_PREFIX = "loopback.ticket.";
/** The contract revision a message is written in, on requests and answers alike. */
export const REVISION_HEADER = "Loopback-Revision";
/** The relay build that answered. */
export const BUILD_HEADER = "Loopback-Build";
