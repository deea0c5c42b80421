/**
 * Client connections: sessions with their mailboxes and outbound queues.
 *
 * @module
 */

export * from "./outbound.ts";
export * from "./session.ts";
