import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { LogHub } from "../../util/log.ts";
import { migrate } from "../backends/migrations.ts";
import { isTransientDbError, type SqlDb, THREAD_LOST_CODE } from "../backends/sql_db.ts";
import { MAIN_BATCH, SqliteStoreDb, THREAD_BATCH } from "../backends/sqlite_store_db.ts";
import { openThreadedStore, type ThreadedStore } from "../backends/sqlite_thread_test_util.ts";
import type { JournalEntry, SeqEntry } from "../types.ts";
import { JournalMismatchError, Store } from "./store.ts";

const log = new LogHub({ level: "error", sink: () => {} }).logger();
const T0 = Date.UTC(2026, 0, 1);

const chat = (i: number): JournalEntry => ({
  t: "event",
  e: { kind: "chat.message", room: "abc", uuid: "room-uuid-1", hidden: false, user: 1, content: `m${i}`, time: T0 + i },
});

/** Records `from`..`to` as chat messages "m<seq>". */
function seqs(from: number, to: number): SeqEntry[] {
  return Array.from({ length: to - from + 1 }, (_, i) => ({ seq: from + i, entry: chat(from + i) }));
}

/** The chat messages stored, in order (a message applied twice shows twice). */
async function messages(db: SqlDb): Promise<string[]> {
  const rows = await db.query("SELECT payload->>'content' AS c FROM events ORDER BY created_at");
  return rows.map((r) => String(r.c));
}

const names = (from: number, to: number) => seqs(from, to).map((s) => `m${s.seq}`);

/** A migrated store on a file whose thread runs from the start. */
async function threaded(fn: (t: ThreadedStore, store: Store) => Promise<void>): Promise<void> {
  const t = await openThreadedStore();
  try {
    await migrate(t.db, log, T0);
    await fn(t, new Store(t.db));
  } finally {
    await t.dispose();
  }
}

Deno.test("on the thread, a batch partly applied already fails its guard and is planned again without those records", () =>
  threaded(async (t, store) => {
    await store.applyBatch(seqs(1, 3), 3, T0);
    await store.applyBatch(seqs(2, 5), 5, T0);
    // Applied whole already (a retry after a reply that was lost): nothing runs again.
    await store.applyBatch(seqs(1, 5), 5, T0);
    assert.deepEqual(t.runs, ["ran", "guard failed", "ran", "guard failed"]);
    assert.deepEqual(await messages(t.db), names(1, 5), "every record once");
    assert.equal(await store.appliedSeq(), 5);
  }));

Deno.test("a batch holding a dead-lettered record that cannot be planned skips it, as in one transaction", () =>
  threaded(async (t, store) => {
    const bad = { seq: 2, entry: { t: "nope" } as unknown as JournalEntry };
    await store.applyBatch(seqs(1, 1), 1, T0);
    await assert.rejects(store.applyBatch([bad], 2, T0), TypeError);
    await store.deadLetter(2, JSON.stringify(bad.entry), "unknown type", 3, T0);
    // A retry of the first batch after a restart: the bad record is below the watermark.
    await store.applyBatch([...seqs(1, 1), bad, ...seqs(3, 3)], 3, T0);
    assert.deepEqual(await messages(t.db), ["m1", "m3"]);
    assert.equal(await store.appliedSeq(), 3);
    await assert.rejects(store.applyBatch([{ ...bad, seq: 4 }], 4, T0), /unknown type "nope"/);
    assert.equal(await store.appliedSeq(), 3);
  }));

Deno.test("on the thread, a database bound to another journal stops the batch with JournalMismatchError", () =>
  threaded(async (t, store) => {
    assert.equal(await store.bindJournal("journal-a", null, T0), true);
    await store.applyBatch(seqs(1, 2), 2, T0);
    // Another server took the database over.
    await t.db.query("UPDATE journal_state SET journal_id = 'journal-b' WHERE id = 1");
    await assert.rejects(store.applyBatch(seqs(3, 4), 4, T0), (e) => {
      assert.ok(e instanceof JournalMismatchError);
      assert.match(e.message, /belongs to journal journal-b, not to this server's journal journal-a/);
      assert.equal(isTransientDbError(e), false);
      return true;
    });
    assert.deepEqual(t.runs, ["ran", "guard failed"]);
    assert.equal(await store.appliedSeq(), 2, "the watermark stays");
    assert.deepEqual(await messages(t.db), names(1, 2));
  }));

Deno.test("a thread lost mid-batch rejects it as transient; the retry and later batches run on the main connection once", () =>
  threaded(async (t, store) => {
    assert.deepEqual(t.db.batchLimits(), THREAD_BATCH, "larger batches while they go to the thread");
    await store.applyBatch(seqs(1, 2), 2, T0);
    const big = seqs(3, 2000);
    const inFlight = store.applyBatch(big, 2000, T0);
    t.thread.terminate();
    await assert.rejects(inFlight, (e: Error & { code?: string }) => {
      assert.equal(e.code, THREAD_LOST_CODE);
      assert.equal(isTransientDbError(e), true, "retried, not dead-lettered");
      return true;
    });
    assert.equal(await t.db.threadRunning(), false);
    assert.deepEqual(t.db.batchLimits(), MAIN_BATCH, "batches small again: they block the event loop");
    // The apply worker retries: whether or not the lost run committed, the records are there once.
    await store.applyBatch(big, 2000, T0);
    await store.applyBatch(seqs(1, 2), 2, T0);
    await store.applyBatch(seqs(2001, 2010), 2010, T0);
    assert.deepEqual(t.runs, ["ran", "error"], "nothing more went to the thread");
    assert.deepEqual(await messages(t.db), names(1, 2010));
    assert.equal(await store.appliedSeq(), 2010);
    const [row] = await t.db.query("PRAGMA wal_autocheckpoint");
    assert.equal(Object.values(row!)[0], 1000, "SQLite checkpoints inside commits again");
  }));

Deno.test("close waits for a batch in flight on the thread, which is committed", async () => {
  const t = await openThreadedStore();
  try {
    await migrate(t.db, log, T0);
    const store = new Store(t.db);
    const inFlight = store.applyBatch(seqs(1, 500), 500, T0);
    await Promise.all([t.db.close(), inFlight]);
    assert.deepEqual(t.runs, ["ran"]);
    await assert.rejects(t.db.query("SELECT 1"), /the database is closed/);
    const again = SqliteStoreDb.open(t.path);
    assert.deepEqual(await messages(again), names(1, 500));
    assert.equal(await new Store(again).appliedSeq(), 500);
    await again.close();
  } finally {
    await t.dispose();
  }
});

Deno.test("a checkpoint while the thread applies a batch waits for it and leaves nothing in the log", () =>
  threaded(async (t, store) => {
    const inFlight = store.applyBatch(seqs(1, 500), 500, T0);
    await t.db.checkpoint();
    await inFlight;
    const other = new DatabaseSync(t.path, { readOnly: true });
    const row = other.prepare("SELECT COUNT(*) AS n FROM events").get() as { n: number };
    const frames = other.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number; checkpointed: number };
    other.close();
    assert.equal(row.n, 500, "the batch committed before the checkpoint");
    assert.deepEqual(t.runs, ["ran", "checkpoint"], "the checkpoint ran on the thread, after the batch");
    assert.equal(frames.checkpointed, frames.log, "nothing left in the log that the file lacks");
  }));
