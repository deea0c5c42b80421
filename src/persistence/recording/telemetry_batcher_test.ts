import assert from "node:assert/strict";
import { ManualClock } from "../../util/clock.ts";
import { TelemetryBatcher, type TelemetryBatcherOptions } from "./telemetry_batcher.ts";
import { RoundTelemetryCap } from "./telemetry_cap.ts";
import type { TelemetryBundleEntry } from "../types.ts";

function setup(o: Partial<TelemetryBatcherOptions> = {}) {
  const clock = new ManualClock();
  const out: TelemetryBundleEntry[] = [];
  const batcher = new TelemetryBatcher({
    clock,
    emit: (entry, body) => {
      assert.deepEqual(JSON.parse(body), entry, "the body is the entry's JSON");
      out.push(entry);
    },
    ...o,
  });
  /** The bundles so far as [kind, user, room, round, items] per batch; then forgets them. */
  const take = () => out.splice(0).map((b) => b.batches.map((x) => [x.kind, x.user, x.room, x.round, x.items.length]));
  return { clock, batcher, take, out };
}

const items = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ time: from + i }));

Deno.test("telemetry batcher: every batch cut in one tick goes into one bundle, from one timer", () => {
  const { clock, batcher, take, out } = setup();
  for (let user = 1; user <= 100; user++) {
    batcher.add("touches", "r1", "round-1", user, items(3), clock.now());
    batcher.add("judges", "r1", "round-1", user, items(2), clock.now());
  }
  assert.equal(clock.pending, 1, "one timer for every player");
  assert.equal(batcher.open, 200);
  clock.advance(499);
  assert.equal(out.length, 0);
  batcher.add("touches", "r1", "round-1", 1, items(1), clock.now());
  clock.advance(1);
  const [bundle] = out;
  assert.equal(out.length, 1);
  assert.equal(bundle!.batches.length, 200);
  assert.deepEqual(bundle!.batches[0], {
    kind: "touches",
    room: "r1",
    round: "round-1",
    user: 1,
    items: [...items(3), ...items(1)],
    first_at: clock.now() - 500,
    last_at: clock.now() - 1,
  });
  take();
  assert.equal(clock.pending, 0, "no timer while nothing is open");
  assert.equal(batcher.pendingItems, 0);
  batcher.add("judges", "r1", null, 7, items(1), clock.now());
  assert.equal(clock.pending, 1);
  clock.advance(500);
  assert.deepEqual(take(), [[["judges", 7, "r1", null, 1]]]);
});

Deno.test("telemetry batcher: a full batch goes at once; the rest keeps filling", () => {
  const { clock, batcher, take } = setup();
  batcher.add("touches", "r1", "g", 1, items(10), 0);
  batcher.add("touches", "r1", "g", 2, items(300), 0);
  assert.deepEqual(take(), [[["touches", 2, "r1", "g", 256]]]);
  batcher.add("touches", "r1", "g", 2, items(300), 0);
  assert.deepEqual(take(), [[["touches", 2, "r1", "g", 256]]], "44 + 212 fill the next one");
  clock.advance(500);
  assert.deepEqual(take(), [[["touches", 1, "r1", "g", 10], ["touches", 2, "r1", "g", 88]]]);
});

Deno.test("telemetry batcher: another room or round starts another batch; a completed round is flushed alone", () => {
  const { clock, batcher, take } = setup();
  batcher.add("touches", "r1", "g1", 1, items(2), 0);
  batcher.add("touches", "r2", "g2", 1, items(1), 0); // Player 1 moved: the g1 batch is cut.
  batcher.add("judges", "r1", "g1", 2, items(1), 0);
  batcher.add("judges", "r3", "g3", 3, items(1), 0);
  batcher.flushRound("g1");
  assert.deepEqual(take(), [[["touches", 1, "r1", "g1", 2], ["judges", 2, "r1", "g1", 1]]]);
  batcher.flushRound("g1");
  batcher.flushRound("unknown");
  assert.deepEqual(take(), []);
  clock.advance(500);
  assert.deepEqual(take(), [[["touches", 1, "r2", "g2", 1], ["judges", 3, "r3", "g3", 1]]]);
  batcher.add("touches", "r1", "g1", 1, [], 0);
  assert.equal(batcher.open, 0, "an empty event opens nothing");
});

Deno.test("telemetry batcher: bundles stay under the record size; past the memory cap everything is cut early", () => {
  const { clock, batcher, out } = setup({ recordBytes: 2000, pendingItems: 1000 });
  for (let user = 1; user <= 20; user++) batcher.add("touches", "r", "g", user, items(10), 0);
  clock.advance(500);
  assert.ok(out.length > 1, `split into ${out.length} records`);
  for (const bundle of out) assert.ok(JSON.stringify(bundle).length <= 2000);
  assert.deepEqual(out.flatMap((b) => b.batches.map((x) => x.user)), Array.from({ length: 20 }, (_, i) => i + 1));
  out.length = 0;
  for (let user = 1; user <= 99; user++) batcher.add("judges", "r", "g", user, items(10), 0);
  assert.equal(out.length, 0);
  assert.equal(batcher.pendingItems, 990);
  batcher.add("judges", "r", "g", 100, items(10), 0);
  assert.equal(out.flatMap((b) => b.batches).length, 100, "1,000 items held: cut and journaled now");
  assert.equal(batcher.pendingItems, 0);
  assert.equal(batcher.counters.early_flushes, 1);
  assert.equal(clock.pending, 0);
});

Deno.test("telemetry batcher: batches are cut 500 ms after their first item, to the tick (8 ticks per 500 ms)", () => {
  const { clock, batcher, take } = setup();
  batcher.add("touches", "r", "g", 1, items(1), clock.now());
  clock.advance(200);
  batcher.add("touches", "r", "g", 2, items(1), clock.now());
  batcher.add("touches", "r", "g", 1, items(1), clock.now());
  assert.equal(clock.pending, 1, "still one timer");
  clock.advance(300);
  assert.deepEqual(take(), [[["touches", 1, "r", "g", 2]]], "at 500 ms: the batch opened at 0");
  clock.advance(187);
  assert.deepEqual(take(), []);
  clock.advance(1);
  assert.deepEqual(take(), [[["touches", 2, "r", "g", 1]]], "at 687.5 ms: the one opened at 200, a tick early");
  assert.equal(clock.pending, 0);

  const single = setup({ slots: 1 });
  single.batcher.add("judges", "r", "g", 1, items(1), single.clock.now());
  single.clock.advance(200);
  single.batcher.add("judges", "r", "g", 2, items(1), single.clock.now());
  single.clock.advance(300);
  assert.deepEqual(single.take(), [[["judges", 1, "r", "g", 1], ["judges", 2, "r", "g", 1]]], "slots: 1 cuts all");
});

Deno.test("telemetry batcher: a player's items beyond the round's budget are not journaled", () => {
  const cap = new RoundTelemetryCap(2 * JSON.stringify(items(10)).length);
  const { clock, batcher, take } = setup({ cap });
  batcher.add("touches", "r1", "g", 1, items(10), 0);
  batcher.add("judges", "r1", "g", 1, items(10), 0);
  batcher.add("touches", "r1", "g", 1, items(10), 0);
  batcher.add("touches", "r1", "g", 2, items(10), 0);
  clock.advance(500);
  assert.deepEqual(take(), [[["touches", 1, "r1", "g", 10], ["judges", 1, "r1", "g", 10], [
    "touches",
    2,
    "r1",
    "g",
    10,
  ]]]);
  assert.deepEqual(cap.counters, {
    dropped_items: 10,
    dropped_bytes: JSON.stringify(items(10)).length,
    capped_rounds: 1,
  });
  assert.equal(batcher.pendingItems, 0);
});
