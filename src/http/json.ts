/**
 * JSON forms of the room resources (spec 1 §2.1): protocol `RoomData`,
 * `RoundData` and `RecordData` with the state in SCREAMING_SNAKE_CASE, the
 * flat profile S summary, the profile R `{name, data}` element with
 * `playing_users`, and `PartialRoomData` with unchanged fields left out
 * (extended.md §5.3).
 *
 * @module
 */

import type { PartialRoomData, RecordData, RoomData, RoundData, StrippedRoomState } from "../protocol/mod.ts";
import { playingUsers, type Room, roomData } from "../room/mod.ts";

/** Room state values of the JSON API (spec 1 §3). */
export const STATE_JSON = {
  SelectingChart: "SELECTING_CHART",
  WaitingForReady: "WAITING_FOR_READY",
  Playing: "PLAYING",
} as const satisfies Record<StrippedRoomState, string>;

/** A JSON room state. */
export type StateJson = (typeof STATE_JSON)[StrippedRoomState];

/** `RecordData` (spec 1 §2.1), field for field. */
export interface RecordJson {
  id: number;
  player: number;
  score: number;
  perfect: number;
  good: number;
  bad: number;
  miss: number;
  max_combo: number;
  accuracy: number;
  full_combo: boolean;
  std: number;
  std_score: number;
}

/** `RoundData`: chart id (-1 = none) and the records. */
export interface RoundJson {
  chart: number;
  records: RecordJson[];
}

/** `RoomData` (spec 1 §2.1). */
export interface RoomDataJson {
  host: number;
  users: number[];
  lock: boolean;
  cycle: boolean;
  chart: number | null;
  state: StateJson;
  rounds: RoundJson[];
}

/** Profile S room summary: `RoomData` flattened next to `name`. */
export type RoomSummaryJson = { name: string } & RoomDataJson;

/** Profile R list element: `{name, data}` with `playing_users`. */
export interface RoomInfoJson {
  name: string;
  data: RoomDataJson & { playing_users: number[] };
}

/** `PartialRoomData`: only the fields that changed. */
export type PartialRoomJson = Partial<Pick<RoomDataJson, "host" | "lock" | "cycle" | "chart" | "state">>;

/** One record, with fields in the documented order. */
export function recordJson(r: RecordData): RecordJson {
  return {
    id: r.id,
    player: r.player,
    score: r.score,
    perfect: r.perfect,
    good: r.good,
    bad: r.bad,
    miss: r.miss,
    max_combo: r.max_combo,
    accuracy: r.accuracy,
    full_combo: r.full_combo,
    std: r.std,
    std_score: r.std_score,
  };
}

/** One round. */
export function roundJson(r: RoundData): RoundJson {
  return { chart: r.chart, records: r.records.map(recordJson) };
}

/** Protocol `RoomData` as JSON. */
export function roomDataJson(d: RoomData): RoomDataJson {
  return {
    host: d.host,
    users: [...d.users],
    lock: d.lock,
    cycle: d.cycle,
    chart: d.chart,
    state: STATE_JSON[d.state],
    rounds: d.rounds.map(roundJson),
  };
}

/** Changed fields only; a null field of `PartialRoomData` means "unchanged" and is omitted. */
export function partialRoomJson(p: PartialRoomData): PartialRoomJson {
  const out: PartialRoomJson = {};
  if (p.host !== null) out.host = p.host;
  if (p.lock !== null) out.lock = p.lock;
  if (p.cycle !== null) out.cycle = p.cycle;
  if (p.chart !== null) out.chart = p.chart;
  if (p.state !== null) out.state = STATE_JSON[p.state];
  return out;
}

/** Profile S summary of a room (spec 1 §2.1 "flat, no data wrapper"). */
export function roomSummary(room: Room): RoomSummaryJson {
  return { name: room.id, ...roomDataJson(roomData(room)) };
}

/** Profile R element of a room (spec 1 §4.2). */
export function roomInfo(room: Room): RoomInfoJson {
  return { name: room.id, data: { ...roomDataJson(roomData(room)), playing_users: playingUsers(room) } };
}
