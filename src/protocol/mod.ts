/**
 * The Phira multiplayer wire protocol: codec primitives, the message schema
 * (declared once, in wire order) and framing.
 *
 * @module
 */

export * from "./codec.ts";
export * from "./schema.ts";
export * from "./replies.ts";
export * from "./framing.ts";
export * from "./telemetry_view.ts";
