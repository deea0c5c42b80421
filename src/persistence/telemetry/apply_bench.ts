/**
 * What the store does with half a second of telemetry at 1,000 rooms × 8
 * players (BENCHMARKS.md "Persistence / Telemetry as wire bytes"): before,
 * 14,000 JSON batches in bundle records inserted as `telemetry_batches`
 * jsonb rows; now, 8,000 segment index rows (the bytes are in the files).
 * Embedded PGlite on the bench's thread, as `applyBatch` runs it. Run:
 * `deno bench -A src/persistence/telemetry/apply_bench.ts`.
 *
 * @module
 */

import { LogHub } from "../../util/log.ts";
import { migrate } from "../backends/migrations.ts";
import { PgliteDb } from "../backends/pglite_db.ts";
import { Store } from "../apply/store.ts";
import type { SeqEntry, TelemetryBatch, TelemetrySegment } from "../types.ts";
import { SAMPLE_FRAMES, SAMPLE_JUDGES } from "./bench_samples.ts";

const PLAYERS = 8000;
const frames = SAMPLE_FRAMES;
const judges = SAMPLE_JUDGES;

const log = new LogHub({ level: "error", sink: () => {} }).logger();
const db = await PgliteDb.open();
await migrate(db, log, 0);
const store = new Store(db);
let seq = 0;

/** Half a second as JSON bundles: eight records (one per tick slot) of 1,750 batches. */
function bundles(): SeqEntry[] {
  const batches: TelemetryBatch[] = [];
  for (let u = 0; u < PLAYERS; u++) {
    const base = { room: `room-${u >> 3}`, round: `round-${u >> 3}`, user: u, first_at: 0, last_at: 1 };
    batches.push({ kind: "touches", ...base, items: frames });
    if (u % 4 !== 3) batches.push({ kind: "judges", ...base, items: judges });
  }
  const out: SeqEntry[] = [];
  for (let i = 0; i < 8; i++) {
    const part = batches.slice(i * batches.length / 8, (i + 1) * batches.length / 8);
    const entry = { t: "telemetry.bundle" as const, batches: part };
    out.push({ seq: seq += part.length, entry, body: JSON.stringify(entry) });
  }
  return out;
}

/** Half a second as segment records: eight records (one per tick slot) of 1,000 segments. */
function segments(): SeqEntry[] {
  const out: SeqEntry[] = [];
  for (let i = 0; i < 8; i++) {
    const segs: TelemetrySegment[] = [];
    for (let u = i * PLAYERS / 8; u < (i + 1) * PLAYERS / 8; u++) {
      const judged = u % 4 !== 3;
      segs.push({
        file: `${u}/7/1700000000000.phirarec`,
        offset: 14,
        bytes: 156 + (judged ? 136 : 0),
        room: `room-${u >> 3}`,
        round: `round-${u >> 3}`,
        user: u,
        touches: 1,
        judges: judged ? 1 : 0,
        touch_items: 10,
        judge_items: judged ? 10 : 0,
        first_at: 0,
        last_at: 1,
      });
    }
    const entry = { t: "telemetry.segments" as const, segments: segs };
    out.push({ seq: seq += segs.length, entry, body: JSON.stringify(entry) });
  }
  return out;
}

async function apply(b: Deno.BenchContext, records: SeqEntry[]): Promise<void> {
  b.start();
  for (const r of records) await store.applyBatch([r], r.seq, 0);
  b.end();
}

Deno.bench("apply half a second: 14,000 JSON batches (before)", { group: "apply", n: 5, warmup: 1 }, async (b) => {
  await apply(b, bundles());
});

Deno.bench("apply half a second: 8,000 segment rows (wire bytes)", { group: "apply", n: 5, warmup: 1 }, async (b) => {
  await apply(b, segments());
});

Deno.bench("journal bytes of half a second", { group: "bytes", n: 1, warmup: 0 }, () => {
  const json = bundles().reduce((n, r) => n + r.body!.length, 0);
  const index = segments().reduce((n, r) => n + r.body!.length, 0);
  console.log(`journal bytes per half second: JSON batches ${json}, segment records ${index}`);
});
