/**
 * Client connections: sessions with their mailboxes, outbound queues and
 * login lifecycle (spec 3 §3.2).
 *
 * @module
 */

export * from "./outbound.ts";
export * from "./session.ts";
export * from "./login_machine.ts";
export * from "./byte_budget.ts";
export { LOGIN_FRAME_MAX } from "./frame_limits.ts";
