/**
 * Which server command answers which client command (protocol.md §5.5).
 *
 * @module
 */

import type { ClientCommandType, ServerCommandType } from "./schema.ts";

/**
 * Server commands that answer a request. The official client panics when one
 * arrives with no request outstanding (protocol.md §5.5), so the server sends
 * them only as replies.
 */
export const REPLY_TYPES = [
  "Authenticate",
  "Chat",
  "CreateRoom",
  "JoinRoom",
  "LeaveRoom",
  "LockRoom",
  "CycleRoom",
  "SelectChart",
  "RequestStart",
  "Ready",
  "CancelReady",
  "Played",
  "Abort",
  "RoomResponse",
] as const satisfies readonly ServerCommandType[];

/** The reply variant that answers each client command; `null` = no reply. */
export const REPLY_OF = {
  Ping: "Pong",
  Authenticate: "Authenticate",
  Chat: "Chat",
  Touches: null,
  Judges: null,
  CreateRoom: "CreateRoom",
  JoinRoom: "JoinRoom",
  LeaveRoom: "LeaveRoom",
  LockRoom: "LockRoom",
  CycleRoom: "CycleRoom",
  SelectChart: "SelectChart",
  RequestStart: "RequestStart",
  Ready: "Ready",
  CancelReady: "CancelReady",
  Played: "Played",
  Abort: "Abort",
  ConsoleAuthenticate: "Authenticate",
  RoomMonitorAuthenticate: "Authenticate",
  QueryRoomInfo: "RoomResponse",
  GameMonitorAuthenticate: "Authenticate",
} as const satisfies { [K in ClientCommandType]: ServerCommandType | null };
