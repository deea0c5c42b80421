/**
 * Replays in the `.phirarec` format (tphira family): the byte format, a
 * writer for one file being recorded and the store of a user's files. A
 * neutral module: the legacy mode records with it, and any part of the
 * server that keeps per-player telemetry can write and read the same files.
 *
 * @module
 */

export * from "./format.ts";
export * from "./io.ts";
export * from "./worker_io.ts";
export * from "./writer.ts";
export * from "./store.ts";
export * from "./store_sync.ts";
