/**
 * Operator console (spec 3 §4.2; issue 7): one command registry used by the
 * terminal console, the terminal UI, the in-game console and OpenUDS
 * `cli.execute`.
 *
 * @module
 */

export * from "./args.ts";
export * from "./errors.ts";
export * from "./registry.ts";
export * from "./deps.ts";
export * from "./views.ts";
export * from "./text.ts";
export * from "./services.ts";
export * from "./runtime_report.ts";
export * from "./input_log.ts";
export * from "./room_visits.ts";
export * from "./create.ts";
export { banTargets, checkMessage, MAX_MESSAGE_CHARS } from "./cmd_users.ts";
export { closeRoomNow, parseCreateOptions } from "./cmd_rooms.ts";
export { ROOM_SET_FIELDS, roomSet } from "./cmd_room_set.ts";
export { NO_PERSISTENCE, PLACEHOLDER_COMMANDS } from "./cmd_journal.ts";
export { WELCOME_PLACEHOLDERS } from "./cmd_server.ts";
export * from "./keys.ts";
export * from "./line_editor.ts";
export * from "./log_sink.ts";
export * from "./console.ts";
export * from "./screen.ts";
export { FRAME_MS, startTui } from "./tui.ts";
