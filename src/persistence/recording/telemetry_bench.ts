/**
 * Telemetry persistence micro-benchmarks (BENCHMARKS.md "Persistence /
 * Telemetry as wire bytes"). Run:
 * `deno bench -A src/persistence/recording/telemetry_bench.ts`.
 *
 * The load is 1,000 rooms × 8 players at the official client's rates
 * (protocol.md §3.1; the load generator's `rooms` scenario): per player one
 * `Touches` message of 10 frames (2 fingers) per half second and one
 * `Judges` message of 10 items every ~0.65 s. Half a second of it is 8,000
 * touch and 6,000 judge messages, appended as wire bytes to 8,000 round
 * files (`../telemetry/segment_store.ts`), then written as 8,000 fsync'd
 * segments indexed by one journal record.
 *
 * @module
 */

import { ClientCommand, encodeValue } from "../../protocol/mod.ts";
import { ManualClock } from "../../util/clock.ts";
import { LogHub } from "../../util/log.ts";
import { Journal } from "../journal/mod.ts";
import { TelemetrySegments } from "../telemetry/segment_store.ts";
import { RoundTelemetryCap } from "./telemetry_cap.ts";
import { SAMPLE_FRAMES, SAMPLE_JUDGES } from "../telemetry/bench_samples.ts";

const PLAYERS = 8000;

const frames = SAMPLE_FRAMES;
const judges = SAMPLE_JUDGES;
/** The payloads as they come off the wire (tag byte first). */
const touchRaw = encodeValue(ClientCommand, { type: "Touches", frames });
const judgeRaw = encodeValue(ClientCommand, { type: "Judges", judges });

const log = new LogHub({ level: "error", sink: () => {} }).logger();
const dir = await Deno.makeTempDir({ prefix: "chorus-telemetry-bench-" });
const journal = await Journal.open({ dir: `${dir}/journal`, clock: new ManualClock(), log });
addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

let run = 0;
/** A store over a fresh folder, as persistence makes it (the cap lifted: the bench is not about budgets). */
function store(clock: ManualClock): TelemetrySegments {
  return new TelemetrySegments({
    clock,
    log,
    dir: `${dir}/record-${run++}`,
    emit: (entry) => void journal.append(entry),
    cap: new RoundTelemetryCap(Infinity),
    maxPendingBytes: Infinity,
  });
}

/** Feeds `players` players' half second of the load. */
function feed(s: TelemetrySegments, players: number, at: number): void {
  for (let u = 0; u < players; u++) {
    const room = `room-${u >> 3}`;
    s.add("touches", room, room, `round-${u >> 3}`, u, touchRaw, frames.length, at);
    if (u % 4 !== 3) s.add("judges", room, room, `round-${u >> 3}`, u, judgeRaw, judges.length, at);
  }
}

Deno.bench("append half a second of the load: 14,000 messages into 8,000 files (main thread)", {
  group: "add",
  n: 10,
  warmup: 2,
}, async (b) => {
  const clock = new ManualClock();
  const s = store(clock);
  feed(s, PLAYERS, 0); // The files exist (their creation is the round's start, not the steady state).
  s.flushAll();
  await s.idle();
  b.start();
  feed(s, PLAYERS, 1);
  b.end();
  await s.close();
  await journal.sync();
});

Deno.bench(
  "one 500 ms tick: 8,000 segments handed to the disk (main thread)",
  { group: "tick", n: 10, warmup: 2 },
  async (b) => {
    const clock = new ManualClock();
    const s = store(clock);
    feed(s, PLAYERS, 0);
    s.flushAll();
    await s.idle();
    feed(s, PLAYERS, 1);
    b.start();
    s.flushAll();
    b.end();
    await s.close();
    await journal.sync();
  },
);

Deno.bench(
  "one 500 ms tick: 8,000 segments written, fsync'd and journaled (wall)",
  { group: "tick", n: 10, warmup: 2 },
  async (b) => {
    const clock = new ManualClock();
    const s = store(clock);
    feed(s, PLAYERS, 0);
    s.flushAll();
    await s.idle();
    feed(s, PLAYERS, 1);
    b.start();
    s.flushAll();
    await s.idle();
    await journal.sync();
    b.end();
    await s.close();
  },
);
