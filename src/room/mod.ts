/**
 * The pure room state machine and its views.
 *
 * @module
 */

export * from "./types.ts";
export * from "./views.ts";
export * from "./machine.ts";
export * from "./timing.ts";
export * from "./admin_machine.ts";
export * from "./ranking.ts";
