import assert from "node:assert/strict";
import { join } from "node:path";
import { ClientCommand, encodeValue, type JudgeEvent, type TouchFrame } from "../../protocol/mod.ts";
import { encodeEntry, encodeHeader, parseReplay, ReplayStore } from "../../replay/mod.ts";
import { ManualClock } from "../../util/clock.ts";
import { LogHub } from "../../util/log.ts";
import { RoundTelemetryCap } from "../recording/telemetry_cap.ts";
import { decodeSegment, readSegments } from "./read.ts";
import { recoverTelemetry, wholeEntriesEnd } from "./recovery.ts";
import { TelemetrySegments, type TelemetrySegmentsOptions } from "./segment_store.ts";
import { OPEN_MARKERS, type TelemetrySegmentsEntry } from "./segment_types.ts";

const frames = (n: number, t0 = 0): TouchFrame[] =>
  Array.from({ length: n }, (_, i) => ({ time: t0 + i, points: [[i % 10, { x: 0.5, y: -0.25 }]] })) as TouchFrame[];
const judges = (n: number): JudgeEvent[] =>
  Array.from({ length: n }, (_, i) => ({ time: i, line_id: 1, note_id: i, judgement: "Perfect" as const }));
const touchRaw = (f: TouchFrame[]) => encodeValue(ClientCommand, { type: "Touches", frames: f });
const judgeRaw = (j: JudgeEvent[]) => encodeValue(ClientCommand, { type: "Judges", judges: j });

async function setup(o: Partial<TelemetrySegmentsOptions> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "chorus-telemetry-" });
  const clock = new ManualClock(1_700_000_000_000);
  const logs: string[] = [];
  const log = new LogHub({ level: "info", sink: (l) => logs.push(l) }).logger();
  const records: TelemetrySegmentsEntry[] = [];
  const store = new TelemetrySegments({ clock, log, dir, emit: (e) => records.push(e), ...o });
  const segments = () => records.flatMap((r) => r.segments);
  return {
    dir,
    clock,
    logs,
    records,
    store,
    segments,
    async [Symbol.asyncDispose]() {
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("telemetry store writes the wire payloads as they came on the tick, indexes them every 5 s, and reads them back", async () => {
  await using t = await setup();
  const start = t.clock.now();
  t.store.roundStarted("round-1", 42, start);
  const a = touchRaw(frames(3));
  const b = judgeRaw(judges(2));
  t.store.add("touches", "r", "u", "round-1", 7, a, 3, t.clock.now());
  await t.store.idle();
  const path = join(t.dir, "7", "42", `${start}.phirarec`);
  assert.equal(await Deno.stat(path).then(() => true, () => false), false, "nothing before the tick");
  t.clock.advance(500);
  await t.store.idle();
  assert.equal((await Deno.stat(path)).size, 14 + a.length + 4, "written on the tick (spec 3 §8: 500 ms)");
  assert.equal(t.segments().length, 0, "not indexed yet");
  t.store.add("judges", "r", "u", "round-1", 7, b, 2, t.clock.now());
  t.clock.advance(4500);
  await t.store.idle();
  const [seg] = t.segments();
  assert.equal(t.segments().length, 1, "what the 5 s wrote is one segment");
  assert.deepEqual(seg, {
    file: `7/42/${start}.phirarec`,
    offset: 14,
    bytes: a.length + b.length + 8,
    room: "r",
    round: "round-1",
    user: 7,
    touches: 1,
    judges: 1,
    touch_items: 3,
    judge_items: 2,
    first_at: start,
    last_at: start + 500,
  });
  const file = await Deno.readFile(join(t.dir, seg!.file));
  assert.deepEqual(
    file,
    Uint8Array.from([
      ...encodeHeader({ chartId: 42, userId: 7, recordId: 0 }),
      ...encodeEntry(a),
      ...encodeEntry(b),
    ]),
  );
  const [bytes] = await readSegments(t.dir, [seg!]);
  assert.deepEqual(decodeSegment(bytes!, "touches"), frames(3));
  assert.deepEqual(decodeSegment(bytes!, "judges"), judges(2));
  // A second segment follows the first in the same file.
  const c = touchRaw(frames(1, 9));
  t.store.add("touches", "r", "u", "round-1", 7, c, 1, t.clock.now());
  t.store.scored("round-1", 7, 9001);
  t.store.flushRound("round-1");
  await t.store.idle();
  const second = t.segments()[1]!;
  assert.equal(second.offset, 14 + seg!.bytes);
  const parsed = parseReplay(await Deno.readFile(join(t.dir, seg!.file)));
  assert.deepEqual(parsed.entries, [a, b, c]);
  assert.equal(parsed.header.recordId, 9001, "the record id is patched in at Played");
  assert.equal(t.store.open, 0, "the round's files are closed");
  // The legacy replay routes list and stream the very same file (src/replay store, tphira layout).
  const replays = new ReplayStore(t.dir);
  assert.deepEqual(await replays.list(7), [{
    chartId: 42,
    replays: [{ chartId: 42, timestamp: start, recordId: 9001, size: 14 + seg!.bytes + second.bytes }],
  }]);
  const opened = await replays.open(7, 42, start);
  opened!.file.close();
  assert.equal(opened!.size, 14 + seg!.bytes + second.bytes);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(join(t.dir, OPEN_MARKERS))), [], "and no longer marked open");
});

Deno.test("telemetry store writes a segment as soon as a buffer reaches the segment size", async () => {
  await using t = await setup({ segmentBytes: 1024 });
  const raw = touchRaw(frames(40));
  assert.ok(raw.length < 1024 && raw.length * 3 > 1024);
  for (let i = 0; i < 3; i++) t.store.add("touches", "r", "u", "round-1", 1, raw, 40, t.clock.now());
  await t.store.idle();
  assert.equal(t.segments().length, 1, "written without waiting for the tick");
  assert.equal(t.segments()[0]!.touches, 3);
  assert.equal(t.store.pendingBytes, 0);
});

Deno.test("telemetry store keeps each player-round under its byte budget", async () => {
  const cap = new RoundTelemetryCap(100);
  await using t = await setup({ cap });
  const raw = touchRaw(frames(2));
  let stored = 0;
  for (let i = 0; i < 10; i++) {
    t.store.add("touches", "r", "u", "round-1", 1, raw, 2, 0);
    if (cap.counters.capped_rounds === 0) stored++;
  }
  t.store.add("touches", "r", "u", "round-1", 2, raw, 2, 0); // Another player has a budget of their own.
  t.store.flushAll();
  await t.store.idle();
  assert.equal(stored, Math.floor(100 / (raw.length + 4)));
  const bytes = t.segments().filter((s) => s.user === 1).reduce((n, s) => n + s.bytes, 0);
  assert.ok(bytes <= 100, `stored ${bytes} bytes`);
  assert.equal(t.segments().filter((s) => s.user === 2).length, 1);
  assert.equal(cap.counters.dropped_items, 2 * (10 - stored));
  assert.equal(cap.counters.dropped_bytes, (raw.length + 4) * (10 - stored));
});

Deno.test("telemetry store drops what exceeds its memory bound and counts it", async () => {
  await using t = await setup({ maxPendingBytes: 200 });
  const raw = touchRaw(frames(4));
  for (let i = 0; i < 20; i++) t.store.add("touches", "r", "u", "round-1", i, raw, 4, 0);
  const kept = Math.floor(200 / (raw.length + 4));
  assert.equal(t.store.counters.messages, kept);
  assert.equal(t.store.counters.dropped, 20 - kept);
  assert.ok(t.store.pendingBytes <= 200);
});

Deno.test("telemetry store on an unwritable folder: one clear error per file, the game goes on", async () => {
  const base = await Deno.makeTempDir({ prefix: "chorus-telemetry-" });
  await Deno.writeTextFile(join(base, "file"), "not a folder");
  await using t = await setup({ dir: join(base, "file", "record") });
  const raw = judgeRaw(judges(1));
  t.store.add("judges", "room-a", "u", "round-9", 5, raw, 1, 0);
  t.clock.advance(500);
  await t.store.idle();
  t.store.add("judges", "room-a", "u", "round-9", 5, raw, 1, 0);
  t.store.add("judges", "room-a", "u", "round-9", 5, raw, 1, 0);
  t.clock.advance(500);
  await t.store.idle();
  assert.deepEqual(t.segments(), [], "nothing indexed");
  assert.equal(t.store.counters.failed_files, 1);
  assert.equal(t.store.counters.dropped, 3);
  const errors = t.logs.filter((l) => l.includes("cannot store telemetry"));
  assert.equal(errors.length, 1, "logged once");
  assert.match(errors[0]!, /user=5/);
  assert.match(errors[0]!, /round=round-9/);
  await Deno.remove(base, { recursive: true });
});

Deno.test("telemetry recovery cuts a torn tail of a file open at the crash, and leaves earlier segments", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "chorus-telemetry-" });
  const log = new LogHub({ level: "error", sink: () => {} }).logger();
  const good = Uint8Array.from([
    ...encodeHeader({ chartId: 1, userId: 2, recordId: 0 }),
    ...encodeEntry(touchRaw(frames(2))),
    ...encodeEntry(judgeRaw(judges(1))),
  ]);
  const path = join(dir, "2", "1", "1000.phirarec");
  await Deno.mkdir(join(dir, "2", "1"), { recursive: true });
  await Deno.mkdir(join(dir, OPEN_MARKERS), { recursive: true });
  const cases: [string, number[]][] = [
    ["a partial entry", [...encodeEntry(touchRaw(frames(5)))].slice(0, 9)],
    ["a partial length prefix", [7, 0]],
    ["zeros", [0, 0, 0, 0, 0, 0, 0, 0]],
    ["an entry that is not telemetry", [...encodeEntry(Uint8Array.of(2, 1, 65))]],
  ];
  for (const [name, tail] of cases) {
    await t.step(name, async () => {
      await Deno.writeFile(path, Uint8Array.from([...good, ...tail]));
      await Deno.writeFile(join(dir, OPEN_MARKERS, "2_1_1000.phirarec"), new Uint8Array(0));
      const r = await recoverTelemetry(dir, log);
      assert.deepEqual(r, { files: 1, cut: 1, bytesCut: tail.length });
      assert.deepEqual(await Deno.readFile(path), good);
      assert.deepEqual(await Array.fromAsync(Deno.readDir(join(dir, OPEN_MARKERS))), []);
    });
  }
  await t.step("a whole file is left as it is", async () => {
    await Deno.writeFile(join(dir, OPEN_MARKERS, "2_1_1000.phirarec"), new Uint8Array(0));
    assert.deepEqual(await recoverTelemetry(dir, log), { files: 1, cut: 0, bytesCut: 0 });
    assert.equal(wholeEntriesEnd(good), good.length);
  });
  await Deno.remove(dir, { recursive: true });
});
