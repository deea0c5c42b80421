/**
 * Domain events and the in-process bus.
 *
 * @module
 */

export * from "./types.ts";
export * from "./bus.ts";
