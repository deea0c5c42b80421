/**
 * The game server: registry, command dispatch, login and the TCP listener.
 *
 * @module
 */

export * from "./context.ts";
export * from "./counters.ts";
export * from "./core.ts";
export * from "./server.ts";
export { MONITOR_NAME_SUFFIX } from "./login.ts";
export * from "./admin.ts";
export * from "./bans.ts";
export * from "./admin_rooms.ts";
export * from "./playtime.ts";
export * from "./welcome.ts";
export * from "./ip_history.ts";
export * from "./ingame_cli.ts";
export * from "./room_snapshot.ts";
export { TELEMETRY_BUDGET, type TelemetryBudget } from "./telemetry_limit.ts";
export type { BeforeCommand, CommandLink, CommandPipeline, CommandView, Next } from "./pipeline.ts";
export type { RoomMonitor } from "./room_monitor.ts";
