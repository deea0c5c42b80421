/**
 * The web monitor's spectator protocol on `/ws/live` (extended.md §5.6),
 * declared as data in wire order like the game protocol. Each WebSocket
 * message is one payload in the game's binary encoding: no length prefix,
 * no version byte. Tags are positions; variants are only ever appended.
 *
 * @module
 */

import {
  ClientRoomState,
  decodeValue,
  encodeValue,
  enumOf,
  i32,
  type Infer,
  JoinRoomResponse,
  JudgeEvent,
  Message,
  option,
  result,
  RoomId,
  RoomState,
  TouchFrame,
  tuple,
  unit,
  UserInfo,
  variant,
  vec,
} from "../protocol/mod.ts";

/** Browser -> server commands: `0 Join`, `1 Leave`, `2 Ready`. */
export const WsCommand = enumOf("WsCommand", [
  variant("Join", { room_id: RoomId }),
  variant("Leave"),
  variant("Ready"),
]);

/**
 * Server -> browser events. `Authenticate` is sent once after connecting;
 * `Join`/`Leave` answer the commands; the rest relay what the spectator's
 * session receives. `UserLeave` is declared for the wire order but, as in
 * the reference proxy, never sent: a leave arrives as `Message` `LeaveRoom`.
 */
export const LiveEvent = enumOf("LiveEvent", [
  variant("Authenticate", { result: result(tuple(UserInfo, option(ClientRoomState))) }),
  variant("Join", { result: result(JoinRoomResponse) }),
  variant("Leave", { result: result(unit) }),
  variant("Touches", { player: i32, frames: vec(TouchFrame) }),
  variant("Judges", { player: i32, judges: vec(JudgeEvent) }),
  variant("StateChange", { state: RoomState }),
  variant("UserJoin", { user: UserInfo }),
  variant("UserLeave", { user: i32 }),
  variant("Message", { message: Message }),
]);

/** A browser command. */
export type WsCommand = Infer<typeof WsCommand>;
/** A spectator event. */
export type LiveEvent = Infer<typeof LiveEvent>;

/** Encodes one event as a WebSocket payload. */
export function encodeLiveEvent(event: LiveEvent): Uint8Array {
  return encodeValue(LiveEvent, event);
}

/** Decodes one event (for tests and clients); throws `ProtocolError` when malformed. */
export function decodeLiveEvent(payload: Uint8Array): LiveEvent {
  return decodeValue(LiveEvent, payload);
}

/** Encodes one browser command (for tests and clients). */
export function encodeWsCommand(command: WsCommand): Uint8Array {
  return encodeValue(WsCommand, command);
}

/** Decodes one browser command; throws `ProtocolError` when malformed. */
export function decodeWsCommand(payload: Uint8Array): WsCommand {
  return decodeValue(WsCommand, payload);
}
