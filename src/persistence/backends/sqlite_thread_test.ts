import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { LogHub } from "../../util/log.ts";
import { migrate } from "./migrations.ts";
import { startSqliteThread } from "./sqlite_thread.ts";
import { BUSY_MS, BUSY_WINDOW_MS, SqliteStoreDb } from "./sqlite_store_db.ts";

const log = new LogHub({ level: "error", sink: () => {} }).logger();

/** A clock where every reading is `cost` ms after the last: each statement then takes `cost` ms of SQLite. */
function statementClock(): { now: () => number; cost: number; t: number } {
  const c = { cost: 0, t: 0, now: () => (c.t += c.cost) };
  return c;
}

Deno.test("many quick commits start no thread; statements taking 2 % of the event loop do", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const clock = statementClock();
    const db = SqliteStoreDb.open(`${dir}/chorus.sqlite`, { now: clock.now });
    await migrate(db, log, 0);
    // A login burst: many commits (BEGIN, INSERT, COMMIT) of under a millisecond each.
    clock.cost = 0.3;
    for (let i = 0; i < 150; i++) {
      await db.transaction((tx) => tx.query("INSERT INTO settings VALUES ($1, '1', 0)", [`login${i}`]));
    }
    assert.equal(await db.threadRunning(), false, "150 commits of 0.9 ms in a window are not busy");
    // Play, in a later window: batches of 45 ms.
    clock.t += BUSY_WINDOW_MS;
    clock.cost = 15;
    for (let i = 0; i < Math.ceil(BUSY_MS / 45); i++) {
      assert.equal(await db.threadRunning(), false);
      await db.transaction((tx) => tx.query("INSERT INTO settings VALUES ($1, '1', 0)", [`batch${i}`]));
    }
    assert.equal(await db.threadRunning(), true, `${BUSY_MS} ms of statements within ${BUSY_WINDOW_MS} ms are`);
    await db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a busy embedded store turns SQLite's checkpoints inside commits off once its thread runs", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/chorus.sqlite`;
    const clock = statementClock();
    const db = SqliteStoreDb.open(path, { now: clock.now });
    await migrate(db, log, 0);
    assert.equal(await db.threadRunning(), false, "an idle store has no thread");
    clock.cost = BUSY_MS;
    await db.transaction((tx) => tx.query("INSERT INTO settings VALUES ('busy', '1', 0)"));
    clock.cost = 0;
    assert.equal(await db.threadRunning(), true, "a busy one has");
    // Over 1,000 pages of log: SQLite would have checkpointed inside one of these commits.
    const big = "x".repeat(3000);
    for (let t = 0; t < 20; t++) {
      await db.transaction(async (tx) => {
        for (let i = 0; i < 100; i++) {
          await tx.query("INSERT INTO settings VALUES ($1, $2, 0)", [`k${t}-${i}`, JSON.stringify({ big })]);
        }
      });
    }
    const [row] = await db.query<{ n: number }>("PRAGMA wal_autocheckpoint");
    assert.equal(Object.values(row!)[0], 0, "automatic checkpoints are off on the store's connection");
    assert.ok(
      (await Deno.stat(`${path}-wal`)).size > 4 * 1024 * 1024,
      "the log grew past SQLite's automatic threshold",
    );
    await db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the thread copies committed frames into the file every period and stops cleanly", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/a.sqlite`;
    const db = new DatabaseSync(path);
    db.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v TEXT)");
    for (let i = 0; i < 200; i++) db.prepare("INSERT INTO t VALUES (?)").run("y".repeat(1000));
    // The rows are in the log only: the file holds at most the schema.
    const before = (await Deno.stat(path)).size;
    assert.ok(before < 16 * 1024, `file ${before} bytes`);
    const thread = await startSqliteThread(path, { periodMs: 20 });
    // Wait (real time: the thread has its own timer) until a period has copied them.
    let after = before;
    for (let i = 0; i < 100 && after < 200_000; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = (await Deno.stat(path)).size;
    }
    await thread.stop();
    await thread.stop();
    assert.ok(after >= 200_000, `the file holds the 200 rows: ${after} bytes`);
    db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("under a steady stream of commits the thread lets the log start over, so it stops growing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/a.sqlite`;
    const db = new DatabaseSync(path);
    db.exec(
      "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v TEXT)",
    );
    const thread = await startSqliteThread(path, { periodMs: 10 });
    const insert = db.prepare("INSERT INTO t VALUES (?)");
    const row = "z".repeat(4000);
    // 200 commits of about 400 KiB, 2 ms apart: 80 MiB through the log.
    for (let i = 0; i < 200; i++) {
      db.exec("BEGIN IMMEDIATE");
      for (let j = 0; j < 100; j++) insert.run(row);
      db.exec("COMMIT");
      await new Promise((r) => setTimeout(r, 2));
    }
    await thread.stop();
    const wal = (await Deno.stat(`${path}-wal`)).size;
    db.close();
    assert.ok(wal < 16 * 1024 * 1024, `the log is reused: ${wal} bytes after 80 MiB of commits`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a store thread that cannot open its file fails to start", async () => {
  await assert.rejects(startSqliteThread("/nonexistent-dir/x/y.sqlite"), /Cannot start the store.s thread/);
});
