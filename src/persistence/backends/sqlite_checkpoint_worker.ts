/**
 * The embedded store's checkpointer thread (`sqlite_checkpointer.ts`): its
 * own connection to the store's file runs `PRAGMA wal_checkpoint(PASSIVE)`
 * every period, so the copy of the log into the file and its two fsyncs
 * never run inside a commit on the event loop's thread. PASSIVE never waits
 * for the writer and never blocks it.
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
      db?.prepare("PRAGMA wal_checkpoint(PASSIVE)").get();
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
