import assert from "node:assert/strict";
import { ManualClock } from "../../util/clock.ts";
import { LogHub } from "../../util/log.ts";
import { type ApplyTarget, ApplyWorker, type BatchLimits } from "./worker.ts";
import { Journal } from "../journal/journal.ts";
import { faultyJournalFiles } from "../journal/faults_test_util.ts";
import type { JournalEntry, SeqEntry } from "../types.ts";

const entry = (i: number): JournalEntry => ({ t: "setting", key: `k${i}`, value: i, at: i });

/** A store stand-in recording what it applied; can be down, slow or reject records. */
class FakeTarget implements ApplyTarget {
  applied: number[] = [];
  watermark = 0;
  down = false;
  poison = new Set<number>();
  dead: { seq: number; error: string; attempts: number }[] = [];
  calls = 0;
  gate: Promise<void> | null = null;
  /** Each applied batch's sequences, and whether each record came with its JSON. */
  batches: [seq: number, body: boolean][][] = [];

  async applyBatch(batch: readonly SeqEntry[], through: number): Promise<void> {
    this.calls++;
    if (this.gate) await this.gate;
    if (this.down) throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const bad = batch.find((b) => this.poison.has(b.seq));
    if (bad) throw Object.assign(new Error(`value out of range in record ${bad.seq}`), { code: "22003" });
    this.batches.push(batch.map((b) => [b.seq, typeof b.body === "string"]));
    for (const b of batch) {
      assert.ok(b.seq > this.watermark, `sequence ${b.seq} applied twice or out of order`);
      this.applied.push(b.seq);
    }
    this.watermark = through;
  }

  deadLetter(seq: number, _body: string, error: string, attempts: number): Promise<void> {
    if (this.down) return Promise.reject(Object.assign(new Error("down"), { code: "ECONNREFUSED" }));
    this.dead.push({ seq, error, attempts });
    this.watermark = Math.max(this.watermark, seq);
    return Promise.resolve();
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await tick();
  assert.ok(cond(), `timed out waiting for: ${what}`);
}

async function setup(
  o: {
    capacity?: number;
    applied?: number;
    before?: number;
    maxQueueBytes?: number;
    maxBatchBytes?: number;
    limits?: () => BatchLimits;
  } = {},
) {
  const dir = await Deno.makeTempDir();
  const clock = new ManualClock();
  const logs = new LogHub({ level: "debug", sink: () => {} });
  const log = logs.logger();
  const { faults, open: openFile } = faultyJournalFiles();
  const journal = await Journal.open({ dir, clock, log, openFile });
  for (let i = 1; i <= (o.before ?? 0); i++) journal.append(entry(i));
  const target = new FakeTarget();
  target.watermark = o.applied ?? 0;
  const worker = new ApplyWorker({
    target,
    journal,
    clock,
    log,
    capacity: o.capacity ?? 2048,
    appliedSeq: o.applied ?? 0,
    ...(o.maxQueueBytes ? { maxQueueBytes: o.maxQueueBytes } : {}),
    ...(o.maxBatchBytes ? { maxBatchBytes: o.maxBatchBytes } : {}),
    ...(o.limits ? { limits: o.limits } : {}),
  });
  const add = (i: number) => {
    const e = entry(i);
    try {
      worker.admit(journal.append(e), e, true);
    } catch (error) {
      worker.admit((error as { seq: number }).seq, e, false);
    }
  };
  const close = async () => {
    await worker.stop();
    await journal.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { dir, clock, logs, journal, target, worker, add, close, faults };
}

Deno.test("apply worker replays unapplied journal records at start, then applies new ones in order once", async () => {
  const s = await setup({ before: 10, applied: 4 });
  s.worker.start();
  await s.worker.idle();
  assert.deepEqual(s.target.applied, [5, 6, 7, 8, 9, 10]);
  await until(() => s.worker.mode === "memory", "caught up");
  for (let i = 11; i <= 15; i++) s.add(i);
  await s.worker.idle();
  assert.deepEqual(s.target.applied, [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
  assert.equal(s.worker.counters.journal_only, 0);
  await s.close();
});

Deno.test("apply worker: a queue full for 100 ms sends records journal-only; they are applied later, once", async () => {
  const s = await setup({ capacity: 4 });
  s.worker.start();
  await until(() => s.worker.mode === "memory", "caught up");
  let release!: () => void;
  s.target.gate = new Promise((resolve) => (release = resolve));
  s.add(1);
  await until(() => s.target.calls === 1, "first batch in flight");
  for (let i = 2; i <= 9; i++) s.add(i); // 4 fill the queue, 4 wait for room.
  assert.equal(s.worker.counters.held, 4);
  assert.equal(s.worker.mode, "memory");
  s.clock.advance(100);
  assert.equal(s.worker.mode, "journal", "still full after 100 ms");
  for (let i = 10; i <= 30; i++) s.add(i);
  assert.equal(s.worker.counters.journal_only, 4 + 21);
  assert.equal(s.worker.queueDepth, 4, "memory stays bounded");
  s.target.gate = null;
  release();
  await s.worker.idle();
  assert.deepEqual(s.target.applied, Array.from({ length: 30 }, (_, i) => i + 1));
  await until(() => s.worker.mode === "memory", "back to the queue");
  s.add(31);
  await s.worker.idle();
  assert.equal(s.target.applied.at(-1), 31);
  await s.close();
});

Deno.test("apply worker waits while the store is down and loses nothing when it returns", async () => {
  const s = await setup();
  s.worker.start();
  await until(() => s.worker.mode === "memory", "caught up");
  s.target.down = true;
  for (let i = 1; i <= 5; i++) s.add(i);
  await until(() => !s.worker.storeUp, "store seen down");
  assert.equal(s.worker.counters.store_outages, 1);
  assert.match(s.worker.lastError ?? "", /ECONNREFUSED/);
  for (let i = 6; i <= 8; i++) s.add(i);
  s.clock.advance(100);
  s.clock.advance(200);
  await tick();
  assert.deepEqual(s.target.applied, []);
  s.target.down = false;
  s.clock.advance(400);
  await s.worker.idle();
  assert.equal(s.worker.storeUp, true);
  assert.deepEqual(s.target.applied, [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.ok(s.logs.history().some((r) => r.msg.startsWith("store reachable again")));
  await s.close();
});

Deno.test("apply worker dead-letters a record that keeps failing and applies the rest", async () => {
  const s = await setup();
  s.worker.start();
  await until(() => s.worker.mode === "memory", "caught up");
  s.target.poison.add(3);
  for (let i = 1; i <= 5; i++) s.add(i);
  await s.worker.idle();
  assert.deepEqual(s.target.applied, [1, 2, 4, 5]);
  assert.deepEqual(s.target.dead.map((d) => [d.seq, d.attempts]), [[3, 3]]);
  assert.match(s.target.dead[0]!.error, /value out of range in record 3/);
  assert.equal(s.worker.counters.dead_lettered, 1);
  await s.close();
});

Deno.test("apply worker applies records whose journal write failed, in sequence order", async (t) => {
  for (const mode of ["memory", "journal"] as const) {
    await t.step(`while in ${mode} mode`, async () => {
      const s = await setup({ capacity: 2 });
      s.worker.start();
      await until(() => s.worker.mode === "memory", "caught up");
      let release!: () => void;
      if (mode === "journal") {
        s.target.gate = new Promise((resolve) => (release = resolve));
        s.add(1);
        await until(() => s.target.calls === 1, "first batch in flight");
        for (let i = 2; i <= 4; i++) s.add(i);
        s.clock.advance(100);
        assert.equal(s.worker.mode, "journal");
      } else for (let i = 1; i <= 4; i++) s.add(i);
      s.faults.failNextWrite = true;
      s.add(5);
      s.add(6);
      s.target.gate = null;
      release?.();
      await s.worker.idle();
      assert.deepEqual(s.target.applied, [1, 2, 3, 4, 5, 6]);
      assert.equal(s.worker.counters.unjournaled, 1);
      await s.close();
    });
  }
});

Deno.test("apply worker bounds its queue and each batch by bytes too (telemetry bundles are large)", async () => {
  const s = await setup({ maxQueueBytes: 2500, maxBatchBytes: 1000 });
  s.worker.start();
  await until(() => s.worker.mode === "memory", "caught up");
  const batch = {
    kind: "judges",
    room: "r",
    round: null,
    user: 1,
    items: ["x".repeat(800)],
    first_at: 0,
    last_at: 0,
  } as const;
  const bundle: JournalEntry = { t: "telemetry.bundle", batches: [batch, batch] };
  const body = JSON.stringify(bundle); // ~1.7 kB
  const addBundle = () => s.worker.admit(s.journal.append(bundle, body), bundle, true, body);
  let release!: () => void;
  s.target.gate = new Promise((resolve) => (release = resolve));
  s.add(1);
  await until(() => s.target.calls === 1, "first batch in flight");
  addBundle(); // 3 (2 sequences each)
  addBundle(); // 5: the queue reaches 2,500 bytes
  addBundle(); // 7: waits for room
  assert.equal(s.worker.counters.held, 1);
  s.clock.advance(100);
  assert.equal(s.worker.mode, "journal", "full for 100 ms");
  for (let i = 0; i < 3; i++) addBundle(); // 9, 11, 13: journal-only
  s.target.gate = null;
  release();
  await s.worker.idle();
  assert.deepEqual(s.target.batches, [
    [[1, false]],
    [[3, true]],
    [[5, true]],
    [[7, true]],
    [[9, true]],
    [[11, true]],
    [[13, true]],
  ], "one bundle per transaction; read back from the journal with its JSON");
  await s.close();
});

Deno.test("apply worker asks its limits before each batch: from the journal files and from the queue", async () => {
  // Read back from the files first, bounded by bytes: any record's JSON is over one byte, so one record a batch.
  let limits: BatchLimits = { records: 100, bytes: 1 };
  const s = await setup({ before: 4, limits: () => limits });
  s.worker.start();
  await s.worker.idle();
  await until(() => s.worker.mode === "memory", "caught up");
  assert.deepEqual(s.target.batches.map((b) => b.length), [1, 1, 1, 1]);
  // Then from the queue, bounded by records: the limits of the moment each batch is taken.
  let release!: () => void;
  s.target.gate = new Promise((resolve) => (release = resolve));
  s.add(5);
  await until(() => s.target.calls === 5, "a batch in flight");
  for (let i = 6; i <= 13; i++) s.add(i);
  limits = { records: 3, bytes: Infinity };
  s.target.gate = null;
  release();
  await s.worker.idle();
  assert.deepEqual(s.target.applied, Array.from({ length: 13 }, (_, i) => i + 1));
  assert.deepEqual(s.target.batches.map((b) => b.length), [1, 1, 1, 1, 1, 3, 3, 2]);
  await s.close();
});
