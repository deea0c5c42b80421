import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { LogHub } from "../../util/log.ts";
import { migrate } from "./migrations.ts";
import { isTransientDbError, type SqlStatement } from "./sql_db.ts";
import { SqliteStoreDb } from "./sqlite_store_db.ts";
import { openThreadedStore } from "./sqlite_thread_test_util.ts";

const log = new LogHub({ level: "error", sink: () => {} }).logger();
const guard = { sql: "SELECT applied_seq FROM journal_state WHERE id = 1", below: { column: "applied_seq", value: 1 } };
const setting = (key: string): SqlStatement => ({ sql: "INSERT INTO settings VALUES ($1, '1', 0)", params: [key] });
const watermark: SqlStatement = { sql: "UPDATE journal_state SET applied_seq = $1 WHERE id = 1", params: [1] };

/** What an error says to its callers: its message and the fields `isTransientDbError` reads. */
function meaning(error: unknown) {
  const { message, code, errcode } = error as { message: string; code?: string; errcode?: number };
  return { message, code, errcode, transient: isTransientDbError(error) };
}

/** The error `statements` end with on `db`. */
async function failure(db: SqliteStoreDb, statements: SqlStatement[]): Promise<unknown> {
  try {
    await db.runGuarded(guard, statements);
  } catch (error) {
    return error;
  }
  assert.fail("the batch succeeded");
}

Deno.test("a failing statement on the thread rolls the batch back and fails as it does on the main connection", async () => {
  const t = await openThreadedStore();
  const main = SqliteStoreDb.open(":memory:");
  try {
    for (const db of [t.db, main]) await migrate(db, log, 0);
    const cases: SqlStatement[][] = [
      // Fails when prepared.
      [setting("a"), { sql: "INSERT INTO nope VALUES ($1)", params: [1] }, watermark],
      // Fails when run (a constraint), after a statement that succeeded.
      [setting("a"), setting("a"), watermark],
      // Fails inside SQLite's JSON functions.
      [setting("a"), { sql: "SELECT value FROM json_each($1)", params: ["{not json"] }, watermark],
    ];
    for (const statements of cases) {
      const onThread = await failure(t.db, statements);
      const onMain = await failure(main, statements);
      assert.deepEqual(meaning(onThread), meaning(onMain));
      assert.equal(meaning(onThread).code, "ERR_SQLITE_ERROR");
      assert.equal(meaning(onThread).transient, false, "the batch's own failure: dead-lettered after retries");
    }
    assert.deepEqual(t.runs, ["error", "error", "error"]);
    assert.deepEqual(await t.db.query("SELECT key FROM settings"), [], "rolled back whole");
    assert.deepEqual(await t.db.query("SELECT applied_seq FROM journal_state"), [{ applied_seq: 0 }]);
    // The thread goes on: the next batch commits there.
    assert.deepEqual(await t.db.runGuarded(guard, [setting("b"), watermark]), { ran: true, row: { applied_seq: 0 } });
    assert.deepEqual(await t.db.query("SELECT key FROM settings"), [{ key: "b" }]);
  } finally {
    await main.close();
    await t.dispose();
  }
});

Deno.test("a busy file fails a batch on the thread as transient, as on the main connection, and the thread goes on", async () => {
  const t = await openThreadedStore({ busyTimeoutMs: 20 });
  try {
    await migrate(t.db, log, 0);
    // Another process holds the writer's lock.
    const other = new DatabaseSync(t.path);
    other.exec("PRAGMA busy_timeout = 0; BEGIN IMMEDIATE");
    const onThread = await failure(t.db, [setting("a"), watermark]);
    // What the main connection's BEGIN IMMEDIATE throws on a busy file (without its 5 s wait).
    const direct = new DatabaseSync(t.path);
    direct.exec("PRAGMA busy_timeout = 0");
    const onMain = (() => {
      try {
        direct.exec("BEGIN IMMEDIATE");
      } catch (error) {
        return error;
      }
      assert.fail("the file was not busy");
    })();
    direct.close();
    other.exec("ROLLBACK");
    other.close();
    assert.deepEqual(meaning(onThread), meaning(onMain));
    assert.match(meaning(onThread).message, /database is locked/);
    assert.equal(meaning(onThread).transient, true, "waited for and retried");
    assert.deepEqual((await t.db.runGuarded(guard, [setting("a"), watermark])).ran, true);
    assert.deepEqual(t.runs, ["error", "ran"]);
  } finally {
    await t.dispose();
  }
});

Deno.test("a guard that does not pass rolls back and returns its row, on the thread and on the main connection", async () => {
  const t = await openThreadedStore();
  const main = SqliteStoreDb.open(":memory:");
  try {
    for (const db of [t.db, main]) {
      await migrate(db, log, 0);
      await db.query("UPDATE journal_state SET applied_seq = 7, journal_id = 'j' WHERE id = 1");
      const read = { sql: "SELECT applied_seq, journal_id FROM journal_state WHERE id = 1" };
      const row = { applied_seq: 7, journal_id: "j" };
      const below = (value: number) => ({ column: "applied_seq", value });
      assert.deepEqual(await db.runGuarded({ ...read, below: below(7) }, [setting("x")]), { ran: false, row });
      assert.deepEqual(await db.runGuarded({ ...read, below: below(8), equal: { journal_id: "k" } }, [setting("x")]), {
        ran: false,
        row,
      });
      assert.deepEqual(await db.query("SELECT key FROM settings"), []);
      assert.deepEqual(await db.runGuarded({ ...read, below: below(8), equal: { journal_id: "j" } }, [setting("x")]), {
        ran: true,
        row,
      });
      assert.deepEqual(await db.query("SELECT key FROM settings"), [{ key: "x" }]);
    }
    assert.deepEqual(t.runs, ["guard failed", "guard failed", "ran"]);
  } finally {
    await main.close();
    await t.dispose();
  }
});

Deno.test("a batch whose parameters cannot be sent to the thread fails alone; the thread goes on", async () => {
  const t = await openThreadedStore();
  try {
    await migrate(t.db, log, 0);
    const uncopyable: SqlStatement = { sql: "SELECT $1", params: [() => 1] };
    await assert.rejects(t.db.runGuarded(guard, [uncopyable]), (e: Error) => {
      assert.equal(e.name, "DataCloneError");
      assert.equal(isTransientDbError(e), false);
      return true;
    });
    assert.equal(await t.db.threadRunning(), true);
    assert.equal((await t.db.runGuarded(guard, [setting("a"), watermark])).ran, true);
    assert.deepEqual(t.runs, ["error", "ran"]);
  } finally {
    await t.dispose();
  }
});

/** Rows of `settings` and the log's frames as a new connection (a restart) sees them. */
function fromFile(path: string): { keys: unknown[]; left: number } {
  const other = new DatabaseSync(path, { readOnly: true });
  const keys = other.prepare("SELECT key FROM settings ORDER BY key").all().map((r) => r.key);
  const frames = other.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number; checkpointed: number };
  other.close();
  return { keys, left: frames.log - frames.checkpointed };
}

Deno.test("the store's checkpoint runs on its thread and writes the main connection's commits into the file too", async () => {
  const t = await openThreadedStore();
  try {
    await migrate(t.db, log, 0);
    await t.db.transaction((tx) => tx.query("INSERT INTO settings VALUES ('main', '1', 0)"));
    await t.db.runGuarded(guard, [setting("thread"), watermark]);
    await t.db.checkpoint();
    assert.deepEqual(t.runs, ["ran", "checkpoint"]);
    assert.deepEqual(fromFile(t.path), { keys: ["main", "thread"], left: 0 });
    // Without the thread (lost), the main connection checkpoints.
    t.thread.terminate();
    await t.db.query("INSERT INTO settings VALUES ('after', '1', 0)");
    await t.db.checkpoint();
    assert.deepEqual(t.runs, ["ran", "checkpoint"]);
    assert.deepEqual(fromFile(t.path), { keys: ["after", "main", "thread"], left: 0 });
  } finally {
    await t.dispose();
  }
});

Deno.test("a checkpoint that a reader keeps from finishing fails on the thread with the main connection's error", async () => {
  const t = await openThreadedStore({ busyTimeoutMs: 20 });
  try {
    await migrate(t.db, log, 0);
    // A reader on an old snapshot: FULL cannot write the newer frames while it reads.
    const reader = new DatabaseSync(t.path);
    reader.exec("BEGIN");
    reader.prepare("SELECT COUNT(*) FROM settings").get();
    await t.db.runGuarded(guard, [setting("a"), watermark]);
    await assert.rejects(t.db.checkpoint(), /Cannot checkpoint the database: \d+ of \d+ log frames written/);
    reader.exec("COMMIT");
    reader.close();
    await t.db.checkpoint();
    assert.deepEqual(t.runs, ["ran", "checkpoint", "checkpoint"], "both on the thread");
    assert.deepEqual(fromFile(t.path), { keys: ["a"], left: 0 });
  } finally {
    await t.dispose();
  }
});
