/**
 * A settled round as the room keeps it in its play history (spec 3 §2.1
 * `play_history`, up to `play_history_cache_size` = 100 rounds per room).
 * The records are packed in one buffer, 64 bytes each, and read back as
 * objects only when something asks (a history query, `RoomData`): as
 * objects -- twelve properties, three boxed doubles -- a player's record
 * cost ~190 bytes of heap, and a full history of 300 rooms of 8 players
 * ~50 MiB that grew round after round (issue 15, "RSS flat under play").
 *
 * @module
 */

import type { RecordData } from "../protocol/mod.ts";
import type { ChartRef, RoundRecord } from "./types.ts";

/** Bytes per packed record: eight int32 fields, three float64, the full-combo flag, padding. */
export const RECORD_BYTES = 64;

// Offsets inside one packed record.
const INTS = ["id", "player", "score", "perfect", "good", "bad", "miss", "max_combo"] as const;
const ACCURACY = 32;
const STD = 40;
const STD_SCORE = 48;
const FULL_COMBO = 56;

const isInt32 = (v: number) => Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff;

/** Packs records (int32 fields as int32, the doubles exactly), or null when one would not come back unchanged. */
export function packRecords(records: readonly RecordData[]): DataView | null {
  // The wire type of these fields is i32 (protocol.md §3 Record) and upstream answers are checked against it.
  if (!records.every((r) => INTS.every((key) => isInt32(r[key])))) return null;
  const view = new DataView(new ArrayBuffer(records.length * RECORD_BYTES));
  records.forEach((r, i) => {
    const at = i * RECORD_BYTES;
    INTS.forEach((key, k) => view.setInt32(at + k * 4, r[key], true));
    view.setFloat64(at + ACCURACY, r.accuracy, true);
    view.setFloat64(at + STD, r.std, true);
    view.setFloat64(at + STD_SCORE, r.std_score, true);
    view.setUint8(at + FULL_COMBO, r.full_combo ? 1 : 0);
  });
  return view;
}

/** The records packed by {@link packRecords}, as new objects. */
export function unpackRecords(view: DataView): RecordData[] {
  const out: RecordData[] = [];
  for (let at = 0; at < view.byteLength; at += RECORD_BYTES) {
    const int = (k: number) => view.getInt32(at + k * 4, true);
    out.push({
      id: int(0),
      player: int(1),
      score: int(2),
      perfect: int(3),
      good: int(4),
      bad: int(5),
      miss: int(6),
      max_combo: int(7),
      accuracy: view.getFloat64(at + ACCURACY, true),
      full_combo: view.getUint8(at + FULL_COMBO) === 1,
      std: view.getFloat64(at + STD, true),
      std_score: view.getFloat64(at + STD_SCORE, true),
    });
  }
  return out;
}

/** A round of the play history with its records packed; `records` reads them back. */
export class SettledRound implements RoundRecord {
  readonly uuid: string;
  readonly chart: ChartRef;
  readonly aborted: readonly number[];
  readonly startedAt: number;
  readonly finishedAt: number;
  /** The packed records, or the objects themselves when a field is not an int32 (never from a checked upstream). */
  readonly #records: DataView | readonly RecordData[];

  /** Copies `init` and packs its records. */
  constructor(init: RoundRecord) {
    this.uuid = init.uuid;
    this.chart = init.chart;
    this.aborted = init.aborted;
    this.startedAt = init.startedAt;
    this.finishedAt = init.finishedAt;
    this.#records = packRecords(init.records) ?? [...init.records];
  }

  /** Whether the records are held packed. */
  get packed(): boolean {
    return this.#records instanceof DataView;
  }

  /** The records, as new objects in the order they were kept. */
  get records(): readonly RecordData[] {
    const held = this.#records;
    return held instanceof DataView ? unpackRecords(held) : held.map((r) => ({ ...r }));
  }
}
