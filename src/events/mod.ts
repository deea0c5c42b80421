/**
 * Domain events and the in-process bus.
 *
 * @module
 */

export * from "./types.ts";
export * from "./bus.ts";
export { logRoomEvents, ROOM_LOG_MESSAGES } from "./room_log.ts";
