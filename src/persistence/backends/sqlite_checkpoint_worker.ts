/**
 * The embedded store's checkpointer thread (`sqlite_checkpointer.ts`): its
 * own connection to the store's file checkpoints every period, so the copy
 * of the log into the file and its fsyncs do not run inside a commit on the
 * event loop's thread: first `PASSIVE` (never waits for the writer, never
 * blocks it) for the bulk, then `RESTART` without waiting (a busy writer
 * makes it a second PASSIVE pass) for the few frames committed meanwhile,
 * which lets the next commit start the log from its beginning again.
 *
 * Messages in: `{ path, periodMs }` once, then `"stop"`. Out: `"ready"`
 * once the connection is open, `{ error }` when opening fails, `"stopped"`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { DatabaseSync } from "node:sqlite";

/** Answers the parent's messages; the connection and timer live in this closure. */
function serve(): void {
  let db: DatabaseSync | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  const checkpoint = () => {
    try {
      // The bulk of the copy, without the writer's lock.
      db?.prepare("PRAGMA wal_checkpoint(PASSIVE)").get();
      // Then what was committed meanwhile, under the writer's lock for a moment (never waited for:
      // busy means a PASSIVE pass), so that the next commit starts the log over: under a steady stream
      // of commits PASSIVE alone never catches up with the end of the log and the log would only grow.
      db?.prepare("PRAGMA wal_checkpoint(RESTART)").get();
    } catch {
      // A busy or failing checkpoint is retried next period; the store's own FULL checkpoint reports errors.
    }
  };
  self.onmessage = (e: MessageEvent<{ path: string; periodMs: number } | "stop">) => {
    if (e.data === "stop") {
      clearInterval(timer);
      db?.close();
      db = null;
      self.postMessage("stopped");
      return;
    }
    try {
      db = new DatabaseSync(e.data.path);
      // Never sleep on a lock: the next period tries again.
      db.exec("PRAGMA busy_timeout = 0");
      timer = setInterval(checkpoint, e.data.periodMs);
      self.postMessage("ready");
    } catch (error) {
      self.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  };
}

serve();
