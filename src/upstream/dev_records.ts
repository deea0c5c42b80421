/**
 * Deterministic development play records.
 *
 * Encoding: `id = player × 1000 + n` with player 1..999999 and n 1..999, so
 * every id below 1,000,000,000 whose last three digits are not `000` is a
 * record of `player = floor(id / 1000)`. Variants by `n`: 1 = all perfect
 * (score 1,000,000, accuracy 1, full combo); 2 = full combo with a few goods;
 * 3 = a rough play with many misses; a multiple of 10 = `std` and `std_score`
 * are `null`; others are derived from a hash of the id. Uploaded and added
 * records get ids from {@link DEV_UPLOAD_ID_BASE} upward (still i32).
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { fnv1a32 } from "./dev_accounts.ts";
import { MAX_DEV_CHART_ID } from "./dev_charts.ts";

/** Multiplier of the player id in a deterministic record id. */
export const DEV_RECORD_STRIDE = 1000;
/** First id given to uploaded records. */
export const DEV_UPLOAD_ID_BASE = 1_000_000_000;
const MAX_PLAYER = 999_999;

/** A stored or derived record, as `/record/{id}` serves it. */
export interface DevRecord {
  id: number;
  player: number;
  chart: number;
  score: number;
  accuracy: number;
  perfect: number;
  good: number;
  bad: number;
  miss: number;
  max_combo: number;
  full_combo: boolean;
  std: number | null;
  std_score: number | null;
  speed: number;
  best: boolean;
  mods: number;
  time: string;
}

/** The deterministic record id of play `n` (1..999) of `player` (1..999999). */
export function devRecordId(player: number, n: number): number {
  if (!Number.isInteger(player) || player < 1 || player > MAX_PLAYER) {
    throw new RangeError(`Cannot make a dev record id: player ${player} is not in 1..${MAX_PLAYER}`);
  }
  if (!Number.isInteger(n) || n < 1 || n >= DEV_RECORD_STRIDE) {
    throw new RangeError(`Cannot make a dev record id: n ${n} is not in 1..999`);
  }
  return player * DEV_RECORD_STRIDE + n;
}

/** Splits a deterministic record id; `null` when `id` does not encode one. */
export function parseDevRecordId(id: number): { player: number; n: number } | null {
  if (!Number.isInteger(id) || id < DEV_RECORD_STRIDE || id >= DEV_UPLOAD_ID_BASE) return null;
  const n = id % DEV_RECORD_STRIDE;
  return n === 0 ? null : { player: Math.floor(id / DEV_RECORD_STRIDE), n };
}

/** Phigros-style score: 900,000 × accuracy + 100,000 × max combo / notes. */
export function devScore(accuracy: number, maxCombo: number, notes: number): number {
  return notes === 0 ? 0 : Math.round(900_000 * accuracy + (100_000 * maxCombo) / notes);
}

/** Accuracy: (perfect + 0.65 × good) / notes. */
export function devAccuracy(perfect: number, good: number, notes: number): number {
  return notes === 0 ? 0 : (perfect + 0.65 * good) / notes;
}

function assemble(id: number, player: number, chart: number, counts: [number, number, number, number], h: number) {
  const [perfect, good, bad, miss] = counts;
  const notes = perfect + good + bad + miss;
  const breaks = bad + miss;
  const maxCombo = breaks === 0 ? notes : Math.max(1, Math.min(notes, Math.floor(notes / (breaks + 1)) + (h % 7)));
  const accuracy = devAccuracy(perfect, good, notes);
  return {
    id,
    player,
    chart,
    score: devScore(accuracy, maxCombo, notes),
    accuracy,
    perfect,
    good,
    bad,
    miss,
    max_combo: maxCombo,
    full_combo: breaks === 0,
  };
}

/** The record a deterministic id stands for, or `null`. */
export function deterministicRecord(id: number): DevRecord | null {
  const parsed = parseDevRecordId(id);
  if (!parsed) return null;
  const { player, n } = parsed;
  const h = fnv1a32(`record:${id}`);
  const notes = 200 + (h % 800);
  let counts: [number, number, number, number];
  if (n === 1) counts = [notes, 0, 0, 0];
  else if (n === 2) counts = [notes - 1 - (h % 10), 1 + (h % 10), 0, 0];
  else if (n === 3) counts = [Math.floor(notes / 2), 40, 30, notes - Math.floor(notes / 2) - 70];
  else {
    const good = (h >>> 17) % 30;
    const bad = (h >>> 13) % 10;
    const miss = (h >>> 8) % 20;
    counts = [notes - good - bad - miss, good, bad, miss];
  }
  const std = n % 10 === 0 ? null : 5 + (h % 250) / 10;
  return {
    ...assemble(id, player, 1 + ((h >>> 3) % MAX_DEV_CHART_ID), counts, h),
    std,
    std_score: std === null ? null : Math.round((1 - std / 100) * 1e6) / 1e6,
    speed: 1,
    best: n === 1,
    mods: 0,
    time: new Date(Date.UTC(2025, 0, 1) + id * 1000).toISOString(),
  };
}

const count = z.int().check(z.gte(0), z.lte(2147483647));

/** Body of `POST /play/upload`; every field is optional (an empty body is a 100-note all-perfect play). */
export const uploadSchema = z.object({
  chart: z.optional(z.int().check(z.gte(1), z.lte(2147483647))),
  score: z.optional(count),
  accuracy: z.optional(z.number().check(z.gte(0), z.lte(1))),
  perfect: z.optional(count),
  good: z.optional(count),
  bad: z.optional(count),
  miss: z.optional(count),
  max_combo: z.optional(count),
  full_combo: z.optional(z.boolean()),
  std: z.optional(z.nullable(z.number())),
  std_score: z.optional(z.nullable(z.number())),
});

/** Fills the defaults of an upload: missing counts -> 100 perfect; score, accuracy, combo derived. */
export function completeUpload(
  input: z.output<typeof uploadSchema>,
  id: number,
  player: number,
  now: number,
): DevRecord {
  const noCounts = [input.perfect, input.good, input.bad, input.miss].every((v) => v === undefined);
  const counts: [number, number, number, number] = [
    input.perfect ?? (noCounts ? 100 : 0),
    input.good ?? 0,
    input.bad ?? 0,
    input.miss ?? 0,
  ];
  const base = assemble(id, player, input.chart ?? 1, counts, 0);
  const maxCombo = input.max_combo ?? base.max_combo;
  const notes = counts.reduce((a, b) => a + b, 0);
  const accuracy = input.accuracy ?? base.accuracy;
  return {
    ...base,
    max_combo: maxCombo,
    accuracy,
    score: input.score ?? devScore(accuracy, maxCombo, notes),
    full_combo: input.full_combo ?? base.full_combo,
    std: input.std ?? null,
    std_score: input.std_score ?? null,
    speed: 1,
    best: false,
    mods: 0,
    time: new Date(now).toISOString(),
  };
}
