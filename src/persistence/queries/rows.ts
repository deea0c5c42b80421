/**
 * Row shapes returned by the read queries (`queries.ts`): plain objects with
 * numbers for int8 columns on both backends.
 *
 * @module
 */

import type { RecordData } from "../../protocol/mod.ts";

/** A durable user record. */
export interface UserRow {
  user_id: number;
  name: string;
  language: string;
  player: boolean;
  login_count: number;
  first_seen_at: number;
  last_seen_at: number;
  last_ip: string | null;
}

/** Accumulated playtime of a user. */
export interface PlaytimeRow {
  user_id: number;
  name: string | null;
  total_ms: number;
}

/** One address a user came from. */
export interface IpHistoryRow {
  ip: string;
  first_seen_at: number;
  last_seen_at: number;
  use_count: number;
}

/** One room visit of a user. */
export interface RoomHistoryRow {
  room_id: string;
  room_uuid: string;
  monitor: boolean;
  joined_at: number;
  left_at: number | null;
  leave_reason: string | null;
}

/** A round. */
export interface RoundRow {
  round_uuid: string;
  room_id: string;
  room_uuid: string;
  chart_id: number;
  chart_name: string;
  players: number[];
  aborted: number[];
  started_at: number;
  finished_at: number | null;
  interrupted: boolean;
}

/** A round result: the `RecordData` fields (spec 3 §2.2). */
export interface RoundResultRow {
  round_uuid: string;
  room_id: string;
  record: RecordData;
  created_at: number;
}

/** A stored domain event. */
export interface EventRow {
  seq: number;
  kind: string;
  room_id: string | null;
  user_id: number | null;
  hidden: boolean;
  payload: unknown;
  created_at: number;
}

/** A batch of touches or judges. */
export interface TelemetryRow {
  seq: number;
  kind: string;
  room_id: string;
  round_uuid: string | null;
  player_id: number;
  item_count: number;
  items: unknown[];
  first_at: number;
  created_at: number;
}

/** A saved room snapshot. */
export interface SnapshotRow {
  room_id: string;
  payload: unknown;
  updated_at: number;
  seq: number;
}

/** A stored benchmark report. */
export interface BenchmarkRow {
  seq: number;
  report_id: string;
  title: string;
  report: unknown;
  created_at: number;
}
