import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { LogHub } from "../../util/log.ts";
import { migrate } from "./migrations.ts";
import { isTransientDbError } from "./sql_db.ts";
import { SqliteStoreDb } from "./sqlite_store_db.ts";

const log = new LogHub({ level: "error", sink: () => {} }).logger();

Deno.test("the embedded store commits to its log and a checkpoint writes the log into the file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/chorus.sqlite`;
    const db = SqliteStoreDb.open(path);
    await migrate(db, log, 0);
    await db.transaction(async (tx) => {
      for (let i = 0; i < 50; i++) await tx.query("INSERT INTO settings VALUES ($1, $2, 0)", [`k${i}`, `{"n":${i}}`]);
    });
    assert.ok((await Deno.stat(`${path}-wal`)).size > 0, "committed into the write-ahead log");
    await db.checkpoint();
    // Another connection, as after a restart: reads the rows from the file; the log was written back whole.
    const other = new DatabaseSync(path, { readOnly: true });
    const row = other.prepare("SELECT COUNT(*) AS n FROM settings").get() as { n: number };
    const frames = other.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number; checkpointed: number };
    other.close();
    assert.equal(row.n, 50);
    assert.equal(frames.checkpointed, frames.log, "nothing left in the log that the file lacks");
    assert.deepEqual(await db.query("SELECT value FROM settings WHERE key = 'k7'"), [{ value: { n: 7 } }]);
    await db.close();
    await assert.rejects(db.checkpoint(), /the database is closed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SQLite errors of a busy file, an I/O error or a full disk are transient; others are not", () => {
  const sqlite = (message: string, errcode?: number) =>
    Object.assign(new Error(message), { code: "ERR_SQLITE_ERROR" }, errcode === undefined ? {} : { errcode });
  assert.equal(isTransientDbError(sqlite("disk I/O error")), true);
  assert.equal(isTransientDbError(sqlite("database or disk is full")), true);
  assert.equal(isTransientDbError(sqlite("database is locked", 5)), true);
  assert.equal(isTransientDbError(sqlite("disk I/O error", 10 | (3 << 8))), true, "extended code of SQLITE_IOERR");
  assert.equal(isTransientDbError(sqlite("NOT NULL constraint failed: rounds.chart_name", 19)), false);
  assert.equal(isTransientDbError(sqlite("no such table: nope")), false);
});
