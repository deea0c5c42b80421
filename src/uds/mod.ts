/**
 * OpenUDS, the local-socket API (spec 3 §4.5, §6.4; issue 7): JSON frames
 * over a Unix domain socket for operators and orchestration tools. Every
 * command is the operation of that name (`src/ops`); this module is the
 * transport, handshake, envelope and event feeds. The protocol is
 * documented in `docs/openuds.md`.
 *
 * @module
 */

export * from "./framing.ts";
export * from "./errors.ts";
export * from "./approvals.ts";
export * from "./events.ts";
export * from "./queue.ts";
export { eventFrame, Feeds, logFrame, type StreamName, STREAMS, telemetryFrame } from "./feeds.ts";
export { AUTH_TIMEOUT_MS, type ConnectionContext, OPENUDS_AUTH_LIMITS, UdsConnection } from "./connection.ts";
export * from "./server.ts";
