/**
 * Where the account backend learns about the game server's rooms: a
 * {@link RoomSource} delivers a full snapshot when it (re)connects and then
 * live events -- a room created (with its creator, for the verification
 * flow), changed, joined, left or gone, a round started, a score reported,
 * a round completed, a game account seen. Two implementations:
 *
 * - `room_source_monitor.ts`: the room-monitor protocol (protocol.md §3.5)
 *   over TCP, so the standalone role works with any server that speaks it;
 * - `room_source_bus.ts`: the game server's in-process event bus, when the
 *   backend is mounted inside `deno task start`.
 *
 * Payloads are already in the JSON shapes of spec 1 §2.1.
 *
 * @module
 */

import type { PartialRoomJson, RecordJson, RoomDataJson, RoundJson } from "../http/json.ts";

export type { PartialRoomJson, RecordJson, RoomDataJson, RoundJson };

/** One room of a snapshot. */
export interface RoomSnapshotEntry {
  readonly data: RoomDataJson;
  /** Players of the running round who have not finished yet (profile R `playing_users`). */
  readonly playing: readonly number[];
}

/** What a room source reports. */
export type RoomSourceEvent =
  /** The complete current state; replaces everything known before (on connect and resync). */
  | { readonly type: "snapshot"; readonly rooms: ReadonlyMap<string, RoomSnapshotEntry> }
  /** A room was created by game account `creator` (its first host). */
  | { readonly type: "created"; readonly room: string; readonly creator: number; readonly data: RoomDataJson }
  | { readonly type: "updated"; readonly room: string; readonly changes: PartialRoomJson }
  | { readonly type: "joined"; readonly room: string; readonly user: number }
  | { readonly type: "left"; readonly room: string; readonly user: number }
  | { readonly type: "deleted"; readonly room: string }
  /** The round began playing with `players` (null: every player of the room, as far as the source knows). */
  | { readonly type: "round_started"; readonly room: string; readonly players: readonly number[] | null }
  /** A player's record of the running round. */
  | { readonly type: "scored"; readonly room: string; readonly record: RecordJson }
  | { readonly type: "round_completed"; readonly room: string; readonly round: RoundJson }
  /** A game account logged in to the game server. */
  | { readonly type: "visited"; readonly user: number }
  /** The link to the game server is down; the rooms are unknown until the next snapshot. */
  | { readonly type: "disconnected"; readonly reason: string };

/** A feed of room state and events from a game server. */
export interface RoomSource {
  /** For logs and `/health/ready`: `monitor 127.0.0.1:12346` or `in-process`. */
  readonly description: string;
  /** True while the snapshot is current and events flow. */
  readonly connected: boolean;
  /** Starts delivering to `sink` (a snapshot first, once connected). Called once. */
  start(sink: (event: RoomSourceEvent) => void): void;
  /** Stops; no event is delivered afterwards. */
  close(): Promise<void>;
}
