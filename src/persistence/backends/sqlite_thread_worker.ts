/**
 * The embedded store's thread (`sqlite_thread.ts`). One connection of its
 * own to the store's file serves these jobs, one at a time (this thread runs
 * one callback at a time):
 *
 * - Checkpoints, every period, so the copy of the log into the file and its
 *   fsyncs do not run inside a commit on the event loop's thread: first
 *   `PASSIVE` (never waits for the writer, never blocks it) for the bulk,
 *   then `RESTART` without waiting (a busy writer makes it a second PASSIVE
 *   pass) for the few frames committed meanwhile, which lets the next
 *   commit start the log from its beginning again.
 * - The store's own FULL checkpoint (`SqliteStoreDb.checkpoint`), in the
 *   order of the batches sent before it, waiting for the writer's lock here.
 * - Apply batches (`SqliteStoreDb.runGuarded`): `BEGIN IMMEDIATE`, the
 *   guard's row, then the statements and `COMMIT`, or `ROLLBACK` with the
 *   row when it does not pass. The connection waits up to its busy timeout
 *   for the main connection's writes, as the main connection does for its
 *   own, and has the main connection's settings (`synchronous = NORMAL`,
 *   foreign keys on, no checkpoints inside commits).
 *
 * Errors go back as their fields (`code`, `errcode`, `errstr`, message), so
 * the parent rebuilds an error that `isTransientDbError` reads the same.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { type CheckpointCounts, toSqliteParams } from "../../db/sqlite.ts";
import { type BatchGuard, type GuardedOutcome, guardPasses, type Row, type SqlStatement } from "./sql_db.ts";

/** A job of the thread, answered by one reply. */
export type ThreadJob =
  | { readonly t: "batch"; readonly guard: BatchGuard; readonly statements: readonly SqlStatement[] }
  | { readonly t: "checkpoint" };

/** A message of the parent to this thread. */
export type ThreadRequest =
  | { readonly t: "open"; readonly path: string; readonly periodMs: number; readonly busyTimeoutMs: number }
  | (ThreadJob & { readonly id: number })
  | { readonly t: "stop" };

/** The fields of an error that its classification reads. */
export interface ThreadError {
  readonly message: string;
  readonly code?: string;
  readonly errcode?: number;
  readonly errstr?: string;
}

/** A message of this thread to its parent. */
export type ThreadReply =
  | { readonly t: "ready" }
  | { readonly t: "failed"; readonly error: string }
  | { readonly t: "done"; readonly id: number; readonly result: GuardedOutcome | CheckpointCounts }
  | { readonly t: "error"; readonly id: number; readonly error: ThreadError }
  | { readonly t: "stopped" };

/** Most distinct statement texts kept prepared (the apply statements are a fixed set of a few dozen). */
const STATEMENT_CACHE = 256;

/** The fields of `error` worth sending (a `node:sqlite` error's own ones). */
function errorFields(error: unknown): ThreadError {
  if (!(error instanceof Error)) return { message: String(error) };
  const { code, errcode, errstr } = error as { code?: unknown; errcode?: unknown; errstr?: unknown };
  return {
    message: error.message,
    ...(typeof code === "string" ? { code } : {}),
    ...(typeof errcode === "number" ? { errcode } : {}),
    ...(typeof errstr === "string" ? { errstr } : {}),
  };
}

/** Answers the parent's messages; the connection, its statements and the timer live in this closure. */
function serve(): void {
  let db: DatabaseSync | null = null;
  let busyTimeoutMs = 5000;
  let timer: ReturnType<typeof setInterval> | undefined;
  const prepared = new Map<string, StatementSync>();
  const statement = (sql: string): StatementSync => {
    let stmt = prepared.get(sql);
    if (!stmt) {
      stmt = db!.prepare(toSqliteParams(sql));
      if (prepared.size >= STATEMENT_CACHE) prepared.clear();
      prepared.set(sql, stmt);
    }
    return stmt;
  };
  const checkpoint = () => {
    if (!db) return;
    try {
      // Never sleep on a lock here: the next period tries again.
      db.exec("PRAGMA busy_timeout = 0");
      // The bulk of the copy, without the writer's lock.
      db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get();
      // Then what was committed meanwhile, under the writer's lock for a moment (never waited for:
      // busy means a PASSIVE pass), so that the next commit starts the log over: under a steady stream
      // of commits PASSIVE alone never catches up with the end of the log and the log would only grow.
      db.prepare("PRAGMA wal_checkpoint(RESTART)").get();
    } catch {
      // A busy or failing checkpoint is retried next period; the store's own FULL checkpoint reports errors.
    } finally {
      db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    }
  };
  const batch = (guard: BatchGuard, statements: readonly SqlStatement[]): GuardedOutcome => {
    const conn = db!;
    conn.exec("BEGIN IMMEDIATE");
    try {
      const row = statement(guard.sql).get() as Row | undefined;
      if (!guardPasses(guard, row)) {
        conn.exec("ROLLBACK");
        return { ran: false, row: row && { ...row } };
      }
      for (const s of statements) {
        // As the main connection runs them (`src/db/sqlite.ts`): all(), booleans as 0/1.
        statement(s.sql).all(...s.params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p) as SQLInputValue));
      }
      conn.exec("COMMIT");
      return { ran: true, row: row && { ...row } };
    } catch (error) {
      if (conn.isTransaction) conn.exec("ROLLBACK");
      throw error;
    }
  };
  // The store's own checkpoint (`SqliteStoreDb.checkpoint`): waits for the writer's lock, as on the main connection.
  const fullCheckpoint = (): CheckpointCounts => {
    const { busy, log, checkpointed } = db!.prepare("PRAGMA wal_checkpoint(FULL)").get() as Record<string, number>;
    return { busy: busy ?? 0, log: log ?? 0, checkpointed: checkpointed ?? 0 };
  };
  self.onmessage = (e: MessageEvent<ThreadRequest>) => {
    const m = e.data;
    if (m.t === "batch" || m.t === "checkpoint") {
      try {
        const result = m.t === "batch" ? batch(m.guard, m.statements) : fullCheckpoint();
        self.postMessage({ t: "done", id: m.id, result } satisfies ThreadReply);
      } catch (error) {
        self.postMessage({ t: "error", id: m.id, error: errorFields(error) } satisfies ThreadReply);
      }
    } else if (m.t === "stop") {
      clearInterval(timer);
      prepared.clear();
      db?.close();
      db = null;
      self.postMessage({ t: "stopped" } satisfies ThreadReply);
    } else if (m.t === "open") {
      try {
        busyTimeoutMs = m.busyTimeoutMs;
        db = new DatabaseSync(m.path);
        // The main connection's settings (`src/db/sqlite.ts`, `sqlite_store_db.ts`); the log's size is bounded as there.
        db.exec(
          `PRAGMA busy_timeout = ${busyTimeoutMs}; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; ` +
            "PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864",
        );
        timer = setInterval(checkpoint, m.periodMs);
        self.postMessage({ t: "ready" } satisfies ThreadReply);
      } catch (error) {
        self.postMessage({ t: "failed", error: errorFields(error).message } satisfies ThreadReply);
      }
    } else {
      // Uncaught: the parent loses the thread and goes on without it.
      throw new Error(`Unknown message to the store's thread: ${JSON.stringify(m)}`);
    }
  };
}

serve();
