/**
 * Operator console (spec 3 §4.2; issue 7): one command registry used by the
 * terminal console, the terminal UI, the in-game console and OpenUDS
 * `cli.execute`. Commands are adapters over the operations layer
 * (`src/ops`): parse the words, call the operation, render the result.
 *
 * @module
 */

export * from "./args.ts";
export * from "./registry.ts";
export * from "./text.ts";
export * from "./create.ts";
export { checkMessage } from "./cmd_users.ts";
export { parseCreateOptions } from "./cmd_rooms.ts";
export { ROOM_SET_FIELDS, roomSet } from "./cmd_room_set.ts";
export { jsonLines, opArgs } from "./cmd_op.ts";
export * from "./keys.ts";
export * from "./line_editor.ts";
export * from "./log_sink.ts";
export * from "./console.ts";
export * from "./screen.ts";
export { FRAME_MS, startTui } from "./tui.ts";
