/**
 * An embedded store on a file in a temporary directory whose thread runs
 * from the start (`:memory:` has none), with the thread's batches recorded,
 * for the tests of `sqlite_thread.ts` and of the store over it.
 *
 * @module
 */

import type { BatchGuard, SqlStatement } from "./sql_db.ts";
import { type SqliteThread, type SqliteThreadOptions, startSqliteThread } from "./sqlite_thread.ts";
import { SqliteStoreDb } from "./sqlite_store_db.ts";

/** What became of one batch sent to the thread ("checkpoint": a FULL checkpoint ran there). */
export type ThreadRun = "ran" | "guard failed" | "error" | "checkpoint";

/** A store with its thread running. */
export interface ThreadedStore {
  readonly db: SqliteStoreDb;
  readonly path: string;
  /** The thread as started (to end it as a crash would). */
  readonly thread: SqliteThread;
  /** The batches (and checkpoints) the thread was given, in order. */
  readonly runs: ThreadRun[];
  /** Closes the store and removes its directory. */
  dispose(): Promise<void>;
}

/** A thread that records what becomes of its batches in `runs`. */
function recording(thread: SqliteThread, runs: ThreadRun[]): SqliteThread {
  return {
    get alive() {
      return thread.alive;
    },
    lost: thread.lost,
    runGuarded: async (guard: BatchGuard, statements: readonly SqlStatement[]) => {
      try {
        const outcome = await thread.runGuarded(guard, statements);
        runs.push(outcome.ran ? "ran" : "guard failed");
        return outcome;
      } catch (error) {
        runs.push("error");
        throw error;
      }
    },
    checkpoint: async () => {
      try {
        const counts = await thread.checkpoint();
        runs.push("checkpoint");
        return counts;
      } catch (error) {
        runs.push("error");
        throw error;
      }
    },
    idle: () => thread.idle(),
    stop: () => thread.stop(),
    terminate: () => thread.terminate(),
  };
}

/** Opens a store at `dir/chorus.sqlite` (a new temporary directory) and waits until its thread runs. */
export async function openThreadedStore(options: SqliteThreadOptions = {}): Promise<ThreadedStore> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/chorus.sqlite`;
  const runs: ThreadRun[] = [];
  let started: SqliteThread | undefined;
  const db = SqliteStoreDb.open(path, {
    threadAfterMs: 0,
    startThread: async (p) => (started = await startSqliteThread(p, options), recording(started, runs)),
  });
  if (!(await db.threadRunning()) || !started) throw new Error("the store's thread did not start");
  return {
    db,
    path,
    thread: started,
    runs,
    dispose: async () => {
      await db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
