import assert from "node:assert/strict";
import { defaultConfig } from "../config/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { faultyJournalFiles } from "./journal/faults_test_util.ts";
import { openPersistence } from "./persistence.ts";
import { EventBus } from "../events/mod.ts";
import type { PersistenceOptions } from "./options.ts";
import { SqliteStoreDb } from "./backends/sqlite_store_db.ts";
import { num } from "./backends/sql_db.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Persistence on an in-memory SQLite and a temporary data_dir, driven by a manual clock. */
async function harness(
  db: SqliteStoreDb,
  extra: Partial<Omit<PersistenceOptions, "config" | "clock">> & {
    config?: Partial<PersistenceOptions["config"]>;
    clock?: ManualClock;
  } = {},
) {
  const dataDir = await Deno.makeTempDir();
  const clock = extra.clock ?? new ManualClock();
  const logs = new LogHub({ level: "debug", sink: () => {} });
  const { config, clock: _clock, ...rest } = extra;
  const p = await openPersistence({
    config: { ...defaultConfig(), data_dir: dataDir, ...config },
    clock,
    log: logs.logger(),
    db,
    ...rest,
  });
  return { p, clock, logs, cleanup: () => Deno.remove(dataDir, { recursive: true }) };
}

Deno.test("persistence jobs: the instance heartbeat every 30 s and retention every hour, on the injected clock", async () => {
  const db = SqliteStoreDb.open(":memory:");
  const { p, clock, logs, cleanup } = await harness(db, {
    config: { table_retention: { events: { max_rows: 10 } } },
  });
  try {
    const t0 = clock.now();
    const alive = async () => {
      await p.flush();
      return num((await db.query("SELECT last_alive_at FROM server_instances"))[0]!.last_alive_at);
    };
    assert.equal(await alive(), t0);
    clock.advance(29_999);
    assert.equal(await alive(), t0, "no heartbeat before 30 s");
    clock.advance(1);
    assert.equal(await alive(), t0 + 30_000);
    clock.advance(30_000);
    assert.equal(await alive(), t0 + 60_000);

    for (let i = 0; i < 20; i++) {
      p.write({
        t: "event",
        e: { kind: "chat.message", room: "r", uuid: "u", hidden: false, user: 1, content: `m${i}`, time: t0 },
      });
    }
    await p.flush();
    const events = async () => num((await db.query("SELECT COUNT(*) AS n FROM events"))[0]!.n);
    const pruned = () => logs.history().some((r) => r.msg === "retention pruned a table");
    assert.equal(await events(), 20);
    clock.advance(3_600_000 - 60_000 - 1);
    for (let i = 0; i < 20; i++) await tick();
    assert.equal(pruned(), false, "no retention before the hour");
    assert.equal(await events(), 20);
    clock.advance(1);
    for (let i = 0; i < 500 && !pruned(); i++) await tick();
    assert.equal(await events(), 8, "cut to 80 % of max_rows by the hourly run");
  } finally {
    await p.stop();
    await cleanup();
    await db.close();
  }
});

Deno.test("persistence jobs: stop flushes playtime not yet flushed by the 60 s timer", async () => {
  const db = SqliteStoreDb.open(":memory:");
  const clock = new ManualClock();
  const bus = new EventBus(() => clock.now());
  const { p, cleanup } = await harness(db, { bus, clock });
  try {
    bus.publish({ kind: "room.joined", room: "r", uuid: "u", hidden: false, user: 7, name: "P7", monitor: false });
    clock.advance(5_000);
    await p.flush();
    assert.deepEqual(await db.query("SELECT total_ms FROM playtime WHERE user_id = 7"), [], "nothing flushed yet");
    await p.stop();
    assert.deepEqual(await db.query("SELECT total_ms FROM playtime WHERE user_id = 7"), [{ total_ms: 5_000 }]);
  } finally {
    await p.stop();
    await cleanup();
    await db.close();
  }
});

Deno.test("journal fsyncs: many ungated writes share one fsync; a login waits for its own", async () => {
  const db = SqliteStoreDb.open(":memory:");
  const files = faultyJournalFiles();
  const { p, clock, cleanup } = await harness(db, { openJournalFile: files.open });
  try {
    clock.advance(2);
    await p.journal.sync();
    const before = files.faults.syncs;
    for (let i = 0; i < 200; i++) p.setSetting(`k${i}`, i);
    assert.equal(files.faults.syncs, before, "appends do not fsync one by one");
    assert.ok(p.journal.syncedSeq < p.journal.lastSeq);
    clock.advance(2); // The coalescing delay.
    for (let i = 0; i < 50 && p.journal.syncedSeq < p.journal.lastSeq; i++) await tick();
    assert.equal(files.faults.syncs - before, 1, "200 records, one fsync");
    assert.equal(p.journal.syncedSeq, p.journal.lastSeq);

    // A gating write (login): it resolves only once its record is fsynced.
    let release!: () => void;
    files.faults.holdSync = new Promise<void>((resolve) => (release = resolve));
    let done = false;
    const login = p.loginJournal.recordLogin({
      user_id: 100,
      name: "P100",
      language: "en-US",
      ip: "10.0.0.1",
      session_id: 1,
      category: "normal",
      at: clock.now(),
    }).then(() => (done = true));
    const seq = p.journal.lastSeq;
    for (let i = 0; i < 20; i++) await tick();
    assert.equal(done, false, "the login waits for the disk");
    assert.ok(p.journal.syncedSeq < seq);
    files.faults.holdSync = null;
    release();
    await login;
    assert.ok(p.journal.syncedSeq >= seq, "resolved with its record on the disk");
  } finally {
    await p.stop();
    await cleanup();
    await db.close();
  }
});
