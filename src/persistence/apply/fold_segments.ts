/**
 * Folding a `telemetry.segments` record (issue 15): one `telemetry_segments`
 * row per segment, and the per-player round data (`round_player_data`:
 * items and batches per kind, first and last time) added up as the JSON
 * batches did -- a segment counts as one batch of each kind it holds.
 *
 * @module
 */

import type { TelemetrySegmentsEntry } from "../types.ts";
import type { Obj, Plan } from "./fold.ts";

/** Adds the rows of a segment record whose last sequence is `seq`. */
export function foldSegments(p: Plan, seq: number, entry: TelemetrySegmentsEntry): void {
  // k segments took sequences seq-k+1 .. seq, one each (segment_types.ts).
  const k = entry.segments.length;
  for (let i = 0; i < k; i++) {
    const s = entry.segments[i]!;
    p.segments.push({
      seq: seq - k + 1 + i,
      file_path: s.file,
      file_offset: s.offset,
      byte_count: s.bytes,
      room_id: s.room,
      round_uuid: s.round,
      player_id: s.user,
      touch_count: s.touches,
      judge_count: s.judges,
      touch_items: s.touch_items,
      judge_items: s.judge_items,
      first_at: s.first_at,
      created_at: s.last_at,
    });
    if (s.round === null) continue;
    const key = `${s.round}|${s.user}`;
    let d = p.playerData.get(key);
    if (!d) {
      d = {
        round_uuid: s.round,
        player_id: s.user,
        room_id: s.room,
        touch_items: 0,
        judge_items: 0,
        touch_batches: 0,
        judge_batches: 0,
        first_at: s.first_at,
        last_at: s.last_at,
      } satisfies Obj;
      p.playerData.set(key, d);
    }
    d.touch_items = (d.touch_items as number) + s.touch_items;
    d.judge_items = (d.judge_items as number) + s.judge_items;
    d.touch_batches = (d.touch_batches as number) + (s.touches > 0 ? 1 : 0);
    d.judge_batches = (d.judge_batches as number) + (s.judges > 0 ? 1 : 0);
    d.first_at = Math.min(d.first_at as number, s.first_at);
    d.last_at = Math.max(d.last_at as number, s.last_at);
  }
}
