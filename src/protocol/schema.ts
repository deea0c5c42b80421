/**
 * The Phira multiplayer protocol, declared once as data in wire order
 * (protocol.md §3). Every TypeScript type of the protocol is inferred from
 * these declarations. Tags are positions: variants are only ever appended.
 *
 * Field names keep the Rust/JSON spelling (`is_host`, `full_combo`) so values
 * can be compared with the reference and serialised to the HTTP API as is.
 *
 * The whole wire schema is in one file, in wire order, so that it can be
 * checked against the protocol at a glance; which reply answers which
 * command is `replies.ts`.
 *
 * @module
 */

import {
  bool,
  bytes,
  type Codec,
  enumOf,
  f16,
  f32,
  i32,
  i8,
  type Infer,
  map,
  option,
  refine,
  result,
  string,
  struct,
  tuple,
  u32,
  unit,
  unitEnum,
  varchar,
  variant,
  vec,
} from "./codec.ts";

/** Room ids: 1-20 ASCII letters, digits, `-` or `_` (protocol.md §2 `RoomId`). */
export const ROOM_ID_REGEXP = /^[A-Za-z0-9_-]{1,20}$/;

/** Why `id` is not a valid room id, or null when it is. */
export function roomIdProblem(id: string): string | null {
  if (id.length > 20) return "string too long";
  return ROOM_ID_REGEXP.test(id) ? null : "invalid room id";
}

/**
 * `RoomId`: a `Varchar<20>` that must be non-empty and use only
 * `[A-Za-z0-9_-]`. A violation is a decode error, not an error reply.
 */
export const RoomId: Codec<string> = refine(varchar(20), "RoomId", roomIdProblem);

/** Authentication token: `Varchar<32>`. */
export const Token: Codec<string> = varchar(32);

/** Two binary16 values, x then y (protocol.md §2 `CompactPos`). */
export const CompactPos = struct({ x: f16, y: f16 }, "CompactPos");

/** `UserInfo { id, name, monitor }`. */
export const UserInfo = struct({ id: i32, name: string, monitor: bool }, "UserInfo");

/** Room state as clients see it. */
export const RoomState = enumOf("RoomState", [
  variant("SelectChart", { chart: option(i32) }),
  variant("WaitingForReady"),
  variant("Playing"),
]);

/** Room state as the reconnecting client receives it in `Authenticate`. */
export const ClientRoomState = struct({
  id: RoomId,
  state: RoomState,
  live: bool,
  locked: bool,
  cycle: bool,
  is_host: bool,
  is_ready: bool,
  users: map(i32, UserInfo),
}, "ClientRoomState");

/** Reply payload of a successful `JoinRoom` (no locked/cycle fields). */
export const JoinRoomResponse = struct({ state: RoomState, users: vec(UserInfo), live: bool }, "JoinRoomResponse");

/** One batch of touches: game time and `(finger id, position)` points. */
export const TouchFrame = struct({ time: f32, points: vec(tuple(i8, CompactPos)) }, "TouchFrame");

/** Judgement kinds in wire order. */
export const Judgement = unitEnum("Judgement", ["Perfect", "Good", "Bad", "Miss", "HoldPerfect", "HoldGood"]);

/** One judged note. */
export const JudgeEvent = struct({ time: f32, line_id: u32, note_id: u32, judgement: Judgement }, "JudgeEvent");

/** Room state without payload, for monitor data (JSON: SCREAMING_SNAKE_CASE). */
export const StrippedRoomState = unitEnum("StrippedRoomState", ["SelectingChart", "WaitingForReady", "Playing"]);

/** A played record as returned by the upstream `/record/{id}` (RecordData). */
export const Record = struct({
  id: i32,
  player: i32,
  score: i32,
  perfect: i32,
  good: i32,
  bad: i32,
  miss: i32,
  max_combo: i32,
  accuracy: f32,
  full_combo: bool,
  std: f32,
  std_score: f32,
}, "Record");

/** One finished round of a room. */
export const RoundData = struct({ chart: i32, records: vec(Record) }, "RoundData");

/** Full room data for monitors (protocol.md §3.5). */
export const RoomData = struct({
  host: i32,
  users: vec(i32),
  lock: bool,
  cycle: bool,
  chart: option(i32),
  state: StrippedRoomState,
  rounds: vec(RoundData),
}, "RoomData");

/** Changed room fields for `RoomEvent::UpdateRoom`. */
export const PartialRoomData = struct({
  host: option(i32),
  lock: option(bool),
  cycle: option(bool),
  chart: option(i32),
  state: option(StrippedRoomState),
}, "PartialRoomData");

/**
 * Pushed room events for the room monitor. Tag 4 is `NewRound`, the layout
 * of HSN phira-mp that the web monitor proxy decodes (protocol.md §3.5).
 */
export const RoomEvent = enumOf("RoomEvent", [
  variant("CreateRoom", { room: RoomId, data: RoomData }),
  variant("UpdateRoom", { room: RoomId, data: PartialRoomData }),
  variant("JoinRoom", { room: RoomId, user: i32 }),
  variant("LeaveRoom", { room: RoomId, user: i32 }),
  variant("NewRound", { room: RoomId, round: RoundData }),
]);

/** Room broadcast messages (protocol.md §3.4). */
export const Message = enumOf("Message", [
  variant("Chat", { user: i32, content: string }),
  variant("CreateRoom", { user: i32 }),
  variant("JoinRoom", { user: i32, name: string }),
  variant("LeaveRoom", { user: i32, name: string }),
  variant("NewHost", { user: i32 }),
  variant("SelectChart", { user: i32, name: string, id: i32 }),
  variant("GameStart", { user: i32 }),
  variant("Ready", { user: i32 }),
  variant("CancelReady", { user: i32 }),
  variant("CancelGame", { user: i32 }),
  variant("StartPlaying"),
  variant("Played", { user: i32, score: i32, accuracy: f32, full_combo: bool }),
  variant("GameEnd"),
  variant("Abort", { user: i32 }),
  variant("LockRoom", { lock: bool }),
  variant("CycleRoom", { cycle: bool }),
]);

const Reply = result(unit);

/** Client -> server commands: official 0-15, monitor extensions 16-19 (protocol.md §3.2, §3.5). */
export const ClientCommand = enumOf("ClientCommand", [
  variant("Ping"),
  variant("Authenticate", { token: Token }),
  // spec 3 §8 limits chat to 200 characters, not bytes: 200 characters of
  // UTF-8 take up to 800 bytes. The character limit is the Chat handler's.
  variant("Chat", { message: varchar(800) }),
  variant("Touches", { frames: vec(TouchFrame) }),
  variant("Judges", { judges: vec(JudgeEvent) }),
  variant("CreateRoom", { id: RoomId }),
  variant("JoinRoom", { id: RoomId, monitor: bool }),
  variant("LeaveRoom"),
  variant("LockRoom", { lock: bool }),
  variant("CycleRoom", { cycle: bool }),
  variant("SelectChart", { id: i32 }),
  variant("RequestStart"),
  variant("Ready"),
  variant("CancelReady"),
  variant("Played", { id: i32 }),
  variant("Abort"),
  variant("ConsoleAuthenticate", { token: Token }),
  variant("RoomMonitorAuthenticate", { key: bytes }),
  variant("QueryRoomInfo"),
  variant("GameMonitorAuthenticate", { token: Token }),
]);

/** Server -> client commands: official 0-19, monitor extensions 20-22 (protocol.md §3.3, §3.5). */
export const ServerCommand = enumOf("ServerCommand", [
  variant("Pong"),
  variant("Authenticate", { result: result(tuple(UserInfo, option(ClientRoomState))) }),
  variant("Chat", { result: Reply }),
  variant("Touches", { player: i32, frames: vec(TouchFrame) }),
  variant("Judges", { player: i32, judges: vec(JudgeEvent) }),
  variant("Message", { message: Message }),
  variant("ChangeState", { state: RoomState }),
  variant("ChangeHost", { is_host: bool }),
  variant("CreateRoom", { result: Reply }),
  variant("JoinRoom", { result: result(JoinRoomResponse) }),
  variant("OnJoinRoom", { user: UserInfo }),
  variant("LeaveRoom", { result: Reply }),
  variant("LockRoom", { result: Reply }),
  variant("CycleRoom", { result: Reply }),
  variant("SelectChart", { result: Reply }),
  variant("RequestStart", { result: Reply }),
  variant("Ready", { result: Reply }),
  variant("CancelReady", { result: Reply }),
  variant("Played", { result: Reply }),
  variant("Abort", { result: Reply }),
  variant("RoomResponse", { result: result(tuple(map(RoomId, RoomData), map(i32, RoomId))) }),
  variant("RoomEvent", { event: RoomEvent }),
  variant("UserVisit", { user: i32 }),
]);

/** `UserInfo` value. */
export type UserInfo = Infer<typeof UserInfo>;
/** `RoomState` value. */
export type RoomState = Infer<typeof RoomState>;
/** `ClientRoomState` value. */
export type ClientRoomState = Infer<typeof ClientRoomState>;
/** `JoinRoomResponse` value. */
export type JoinRoomResponse = Infer<typeof JoinRoomResponse>;
/** `TouchFrame` value. */
export type TouchFrame = Infer<typeof TouchFrame>;
/** `Judgement` value. */
export type Judgement = Infer<typeof Judgement>;
/** `JudgeEvent` value. */
export type JudgeEvent = Infer<typeof JudgeEvent>;
/** `StrippedRoomState` value. */
export type StrippedRoomState = Infer<typeof StrippedRoomState>;
/** `Record` value (RecordData). */
export type RecordData = Infer<typeof Record>;
/** `RoundData` value. */
export type RoundData = Infer<typeof RoundData>;
/** `RoomData` value. */
export type RoomData = Infer<typeof RoomData>;
/** `PartialRoomData` value. */
export type PartialRoomData = Infer<typeof PartialRoomData>;
/** `RoomEvent` value. */
export type RoomEvent = Infer<typeof RoomEvent>;
/** `Message` value. */
export type Message = Infer<typeof Message>;
/** `ClientCommand` value. */
export type ClientCommand = Infer<typeof ClientCommand>;
/** `ServerCommand` value. */
export type ServerCommand = Infer<typeof ServerCommand>;
/** Name of a client command variant. */
export type ClientCommandType = ClientCommand["type"];
/** Name of a server command variant. */
export type ServerCommandType = ServerCommand["type"];
/** The client command of one variant. */
export type ClientCommandOf<T extends ClientCommandType> = Extract<ClientCommand, { type: T }>;
/** The server command of one variant. */
export type ServerCommandOf<T extends ServerCommandType> = Extract<ServerCommand, { type: T }>;

/** Protocol version byte the client sends first (protocol.md §1). */
export const PROTOCOL_VERSION = 1;
