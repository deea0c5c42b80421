import assert from "node:assert/strict";
import { defaultConfig } from "../config/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { Journal } from "./journal/journal.ts";
import { LOCK_FILE } from "./lock.ts";
import { openPersistence } from "./persistence.ts";
import { SqliteStoreDb } from "./backends/sqlite_store_db.ts";
import type { Queryable, SqlDb } from "./backends/sql_db.ts";

/** A database whose journal-applying transactions wait while held (a store too slow to keep up). */
function slowDb(db: SqlDb) {
  let release: (() => void) | null = null;
  let held: Promise<void> | null = null;
  const wrapped: SqlDb = {
    backend: db.backend,
    query: (sql, params) => db.query(sql, params),
    exec: (script) => db.exec(script),
    transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return db.transaction((tx) =>
        fn({
          async query(sql, params) {
            // The first statement of every batch (`Store.applyBatch`; `FOR UPDATE` only on PostgreSQL).
            if (held && sql.startsWith("SELECT applied_seq")) await held;
            return await tx.query(sql, params);
          },
          exec: (script) => tx.exec(script),
        })
      );
    },
    checkpoint: () => db.checkpoint(),
    close: () => db.close(),
  };
  return {
    db: wrapped,
    hold() {
      held = new Promise((resolve) => (release = resolve));
    },
    release() {
      held = null;
      release?.();
    },
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("persistence startup fails closed", async (t) => {
  const db = SqliteStoreDb.open(":memory:");
  const log = new LogHub({ level: "debug", sink: () => {} }).logger();
  try {
    await t.step(
      "when journal recovery exceeds startup_recovery_timeout; the next start finishes the replay",
      async () => {
        const dataDir = await Deno.makeTempDir();
        const clock = new ManualClock();
        const journal = await Journal.open({ dir: `${dataDir}/journal`, clock, log });
        for (let i = 0; i < 10; i++) journal.append({ t: "setting", key: `k${i}`, value: i, at: i });
        await journal.close();
        const slow = slowDb(db);
        const config = { ...defaultConfig(), data_dir: dataDir, startup_recovery_timeout: 5 };
        slow.hold();
        const opening = openPersistence({ config, clock, log, db: slow.db });
        for (let i = 0; i < 500 && clock.pending === 0; i++) await tick(); // Until the recovery timer is set.
        clock.advance(5000);
        // Startup has given up; let a batch in flight finish so the worker can stop.
        slow.release();
        await assert.rejects(opening, (e: Error & { code?: string }) => {
          assert.equal(e.code, "recovery_timeout");
          assert.match(
            e.message,
            /^Cannot start: journal recovery did not finish within startup_recovery_timeout \(5 s\)/,
          );
          assert.match(e.message, /the next start continues/);
          return true;
        });
        await assert.rejects(Deno.stat(`${dataDir}/${LOCK_FILE}`), Deno.errors.NotFound, "the lock is released");
        // The next start finishes the replay.
        const p = await openPersistence({ config, clock, log, db: db });
        assert.equal(p.getSetting("k9"), 9);
        await p.stop();
        await Deno.remove(dataDir, { recursive: true });
      },
    );

    await t.step("when the database schema is newer than the code", async () => {
      const dataDir = await Deno.makeTempDir();
      await db.query("INSERT INTO schema_version VALUES (99, 0, 'future')");
      const config = { ...defaultConfig(), data_dir: dataDir };
      await assert.rejects(
        openPersistence({ config, clock: new ManualClock(), log, db: db }),
        /its schema version 99 is newer than this server supports/,
      );
      await assert.rejects(Deno.stat(`${dataDir}/${LOCK_FILE}`), Deno.errors.NotFound, "the lock is released");
      await Deno.remove(dataDir, { recursive: true });
    });
  } finally {
    await db.close();
  }
});
