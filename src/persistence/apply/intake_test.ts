import assert from "node:assert/strict";
import { ManualClock } from "../../util/clock.ts";
import { LogHub } from "../../util/log.ts";
import { ApplyIntake, type IntakeCounters } from "./intake.ts";
import type { Item } from "./backlog.ts";

const item = (seq: number, journaled = true, raw: string | null = null): Item => ({
  seq,
  entry: { t: "setting", key: `k${seq}`, value: seq, at: seq },
  raw,
  journaled,
});

const seqs = (items: readonly Item[] | null) => items?.map((i) => i.seq) ?? null;

/** An intake already in memory mode (it starts in journal mode until the worker has read back the files). */
function setup(o: { capacity?: number; maxQueueBytes?: number } = {}) {
  const clock = new ManualClock();
  const logs = new LogHub({ level: "debug", sink: () => {} });
  const counters: IntakeCounters = { journal_only: 0, held: 0, unjournaled: 0 };
  const intake = new ApplyIntake({
    clock,
    log: logs.logger(),
    capacity: o.capacity ?? 4,
    maxQueueBytes: o.maxQueueBytes,
    counters,
  });
  assert.equal(intake.mode, "journal", "starts reading back the journal");
  assert.equal(intake.toMemoryMode(), false, "nothing was queued");
  assert.equal(intake.mode, "memory");
  const warnings = () => logs.history().filter((r) => r.msg.startsWith("persistence queue full for too long")).length;
  return { clock, counters, intake, warnings };
}

Deno.test("apply intake queues records in order and cuts batches by count and by bytes", () => {
  const s = setup({ capacity: 10 });
  assert.equal(s.intake.take(256, 1000), null, "empty queue");
  for (let i = 1; i <= 5; i++) s.intake.admit(item(i));
  assert.equal(s.intake.depth, 5);
  assert.deepEqual(seqs(s.intake.take(2, 1 << 20)), [1, 2]);
  // Small records count 256 bytes: the batch ends with the record that reaches 600.
  assert.deepEqual(seqs(s.intake.take(256, 600)), [3, 4, 5]);
  assert.equal(s.intake.depth, 0);
  s.intake.admit(item(6, true, "x".repeat(5000)));
  s.intake.admit(item(7));
  assert.deepEqual(seqs(s.intake.take(256, 1000)), [6], "one large record fills a batch by itself");
  assert.deepEqual(seqs(s.intake.take(256, 1000)), [7]);
  assert.deepEqual(s.counters, { journal_only: 0, held: 0, unjournaled: 0 });
});

Deno.test("apply intake holds records while the queue is full and refills the queue from them", () => {
  const s = setup({ capacity: 2 });
  for (let i = 1; i <= 4; i++) s.intake.admit(item(i));
  assert.equal(s.counters.held, 2);
  assert.equal(s.intake.depth, 4);
  assert.equal(s.clock.pending, 1, "hold timer armed once");
  assert.deepEqual(seqs(s.intake.take(1, 1 << 20)), [1]);
  assert.deepEqual(seqs(s.intake.take(1, 1 << 20)), [2]);
  assert.equal(s.clock.pending, 0, "no record held any more: the timer is cancelled");
  s.clock.advance(100);
  assert.equal(s.intake.mode, "memory");
  assert.deepEqual(seqs(s.intake.take(256, 1 << 20)), [3, 4], "held records keep their order");
  assert.equal(s.warnings(), 0);
});

Deno.test("apply intake goes journal-only when the queue stays full for the hold time", () => {
  const s = setup({ capacity: 2 });
  for (let i = 1; i <= 4; i++) s.intake.admit(item(i));
  s.clock.advance(99);
  assert.equal(s.intake.mode, "memory");
  s.clock.advance(1);
  // spec 3 §8: still full after 100 ms; the held records are read back from the journal later.
  assert.equal(s.intake.mode, "journal");
  assert.equal(s.counters.journal_only, 2);
  assert.equal(s.warnings(), 1);
  assert.equal(s.intake.depth, 2, "the queue itself is kept");
  for (let i = 5; i <= 9; i++) s.intake.admit(item(i));
  assert.equal(s.counters.journal_only, 7);
  assert.equal(s.intake.depth, 2, "journal-only records are not kept in memory");
  assert.deepEqual(seqs(s.intake.take(256, 1 << 20)), [1, 2]);
  assert.equal(s.intake.take(256, 1 << 20), null);
  assert.equal(s.intake.toMemoryMode(), false);
  s.intake.admit(item(10));
  assert.deepEqual(seqs(s.intake.take(256, 1 << 20)), [10]);
  assert.equal(s.warnings(), 1);
});

Deno.test("apply intake goes journal-only at once when the held records reach the bounds", async (t) => {
  await t.step("by count", () => {
    const s = setup({ capacity: 2 });
    for (let i = 1; i <= 4; i++) s.intake.admit(item(i)); // 2 queued, 2 held
    s.intake.admit(item(5));
    assert.equal(s.intake.mode, "journal");
    assert.equal(s.counters.journal_only, 3, "the 2 held and the new one");
    assert.equal(s.clock.pending, 0, "hold timer cancelled");
  });
  await t.step("by bytes", () => {
    const s = setup({ capacity: 100, maxQueueBytes: 1000 });
    const big = "x".repeat(600);
    s.intake.admit(item(1, true, big));
    s.intake.admit(item(2, true, big)); // The queue reaches 1,200 bytes.
    s.intake.admit(item(3, true, big)); // Held: 600.
    assert.equal(s.counters.held, 1);
    s.intake.admit(item(4, true, big)); // Held: 1,200.
    assert.equal(s.intake.mode, "memory");
    s.intake.admit(item(5, true, big));
    assert.equal(s.intake.mode, "journal");
    assert.equal(s.counters.journal_only, 3);
    assert.equal(s.intake.depth, 2);
  });
});

Deno.test("apply intake refills from held records only while the queue has room in bytes", () => {
  const s = setup({ capacity: 100, maxQueueBytes: 1000 });
  const big = "x".repeat(600);
  for (let i = 1; i <= 4; i++) s.intake.admit(item(i, true, big)); // 2 queued, 2 held
  assert.equal(s.counters.held, 2);
  assert.deepEqual(seqs(s.intake.take(1, 1 << 20)), [1]);
  assert.equal(s.intake.depth, 3, "600 queued bytes: one held record moves up, the other waits");
  assert.equal(s.clock.pending, 1, "still holding one");
  assert.deepEqual(seqs(s.intake.take(256, 1 << 20)), [2, 3]);
  assert.equal(s.clock.pending, 0);
  assert.deepEqual(seqs(s.intake.take(256, 1 << 20)), [4]);
});

Deno.test("apply intake keeps records whose append failed, whatever the mode, and returns them in order", () => {
  const s = setup({ capacity: 1 });
  s.intake.admit(item(1));
  s.intake.admit(item(2)); // held
  s.intake.admit(item(3, false)); // behind a held record: held too, never ahead of it
  assert.equal(s.counters.unjournaled, 1);
  assert.equal(s.intake.depth, 3);
  s.clock.advance(100);
  assert.equal(s.intake.mode, "journal");
  assert.equal(s.counters.journal_only, 1, "only the journaled held record counts");
  assert.equal(s.intake.depth, 1);
  s.intake.admit(item(4));
  s.intake.admit(item(5, false));
  s.intake.admit(item(6));
  s.intake.admit(item(7, false));
  assert.equal(s.counters.unjournaled, 3);
  assert.deepEqual(seqs(s.intake.take(256, 1 << 20)), [1]);
  // The read-back found records up to 5 on disk: unjournaled ones below that join its batch.
  assert.deepEqual(seqs(s.intake.takeUnjournaled(2, 5)), [3]);
  assert.deepEqual(s.intake.takeUnjournaled(2, 5), [], "taken once");
  assert.equal(s.intake.toMemoryMode(), true, "the rest is queued");
  assert.deepEqual(seqs(s.intake.take(256, 1 << 20)), [5, 7]);
  assert.equal(s.intake.toMemoryMode(), false);
});

Deno.test("apply intake in memory mode queues a record whose append failed like any other", () => {
  const s = setup({ capacity: 1 });
  s.intake.admit(item(1, false));
  s.intake.admit(item(2, false)); // Over capacity, but its only copy is in memory: queued anyway.
  assert.equal(s.intake.depth, 2);
  assert.equal(s.counters.held, 0);
  assert.deepEqual(seqs(s.intake.take(256, 1 << 20)), [1, 2]);
});

Deno.test("apply intake close cancels the hold timer", () => {
  const s = setup({ capacity: 1 });
  s.intake.admit(item(1));
  s.intake.admit(item(2));
  assert.equal(s.clock.pending, 1);
  s.intake.close();
  assert.equal(s.clock.pending, 0);
  s.clock.advance(1000);
  assert.equal(s.intake.mode, "memory");
});
