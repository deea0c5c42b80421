/**
 * Telemetry persistence micro-benchmarks (BENCHMARKS.md "Persistence /
 * Telemetry"). Run: `deno bench -A src/persistence/telemetry_bench.ts`.
 *
 * The load is 1,000 rooms × 8 players at the official client's rates
 * (protocol.md §3.1; the load generator's `rooms` scenario): per player one
 * `Touches` event of ~20 frames (2 fingers) per second and one `Judges`
 * event of ~10 items every ~0.65 s. Half a second of it is 8,000 touch and
 * 6,000 judge events of 10 items (~17 MB of JSON), cut into 14,000 batches.
 *
 * @module
 */

import type { JudgeEvent, TouchFrame } from "../../protocol/mod.ts";
import { ManualClock } from "../../util/clock.ts";
import { LogHub } from "../../util/log.ts";
import { Journal } from "../journal/mod.ts";
import { TelemetryBatcher } from "./telemetry_batcher.ts";
import type { TelemetryEntry } from "../types.ts";

const PLAYERS = 8000;
const f32 = (x: number) => Math.fround(x);

/** One touch event: 10 frames of 2 fingers (half a second at 20 Hz). */
const frames: TouchFrame[] = Array.from({ length: 10 }, (_, k) => ({
  time: f32(12.34 + k / 20),
  points: [0, 1].map((f) => [f, { x: f32(((k * 3 + f * 40) % 200) / 100 - 1), y: f32((k * 7 % 100) / 100 - 0.5) }]),
})) as TouchFrame[];
/** One judge event of 10 items. */
const judges: JudgeEvent[] = Array.from({ length: 10 }, (_, k) => ({
  time: f32(12.34 + k / 16),
  line_id: k % 4,
  note_id: 1000 + k,
  judgement: k % 17 === 0 ? "Good" : "Perfect",
}));

/** Feeds `players` players' half second of the load (their batches open in the same tick slot). */
function feed(b: TelemetryBatcher, players: number): void {
  for (let u = 0; u < players; u++) {
    const room = `room-${u >> 3}`;
    b.add("touches", room, `round-${u >> 3}`, u, frames, 0);
    if (u % 4 !== 3) b.add("judges", room, `round-${u >> 3}`, u, judges, 0);
  }
}

const hot = new TelemetryBatcher({ clock: new ManualClock(), emit: () => {} });
let n = 0;

Deno.bench("add one event (hot path, 8,000 players, amortized cuts)", { group: "add" }, () => {
  const u = n++ % PLAYERS;
  if (u & 1) hot.add("judges", `room-${u >> 3}`, "round", u, judges, 0);
  else hot.add("touches", `room-${u >> 3}`, "round", u, frames, 0);
});

const log = new LogHub({ level: "error", sink: () => {} }).logger();
const dir = await Deno.makeTempDir({ prefix: "chorus-telemetry-bench-" });
const journal = await Journal.open({ dir, clock: new ManualClock(), log });
addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

/**
 * Main-thread time of the ticks that cut `players` players' batches and
 * journal them (fsync excluded: it runs off the thread). A tick slot holds
 * an eighth of the players' batches when arrivals are spread (as shipped).
 */
async function tick(b: Deno.BenchContext, players: number, slots: number): Promise<void> {
  const clock = new ManualClock();
  const batcher = new TelemetryBatcher({
    clock,
    emit: (entry, body) => void journal.append(entry, body),
    pendingItems: Infinity,
    slots,
  });
  feed(batcher, players);
  b.start();
  clock.advance(500);
  b.end();
  await journal.sync();
  await journal.dropThrough(journal.lastSeq);
}

Deno.bench("one tick slot: 1,000 players' batches → bundles → journal (as shipped)", {
  group: "tick",
  baseline: true,
}, (b) => tick(b, PLAYERS / 8, 8));

Deno.bench(
  "one 500 ms tick: 8,000 players' batches → bundles → journal (slots: 1)",
  { group: "tick" },
  (b) => tick(b, PLAYERS, 1),
);

Deno.bench("one record per batch, 8,000 players (before bundles)", { group: "tick" }, async (b) => {
  const batches: TelemetryEntry[] = [];
  const batcher = new TelemetryBatcher({
    clock: new ManualClock(),
    emit: (entry) => void batches.push(...entry.batches.map((x) => ({ t: "telemetry" as const, ...x }))),
    pendingItems: Infinity,
  });
  feed(batcher, PLAYERS);
  batcher.flushAll();
  b.start();
  for (const entry of batches) journal.append(entry);
  b.end();
  await journal.sync();
  await journal.dropThrough(journal.lastSeq);
});
