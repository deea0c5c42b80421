/**
 * Moves the embedded store's WAL checkpoints off the event loop's thread
 * (issue 15, relay latency at 300 rooms). SQLite checkpoints automatically
 * inside the commit that grows the log past 1,000 pages: it copies the log
 * into the file and fsyncs both, in the committing thread, which is the
 * server's event loop (`node:sqlite` is synchronous). With telemetry indexed
 * at thousands of rows a second that doubled the time of commits and made
 * the longest ones (tens of milliseconds). The store's connection therefore
 * turns automatic checkpoints off and a worker thread with a connection of
 * its own checkpoints every {@link CHECKPOINT_PERIOD_MS}
 * (`sqlite_checkpoint_worker.ts`).
 *
 * Crash safety is unchanged: a checkpoint copies committed pages only, and
 * the store's own `checkpoint()` (FULL, before journal segments are deleted)
 * still makes everything durable at the points that rely on it.
 *
 * @module
 */

/** How often the worker checkpoints, ms: the log stays within a few MiB at the write rates of 300 rooms. */
export const CHECKPOINT_PERIOD_MS = 1000;

/** A running checkpointer thread. */
export interface Checkpointer {
  /** Stops the thread after its connection is closed. */
  stop(): Promise<void>;
}

/** Starts checkpointing the SQLite file at `path` every `periodMs` in a worker; resolves once its connection is open. */
export async function startCheckpointer(path: string, periodMs = CHECKPOINT_PERIOD_MS): Promise<Checkpointer> {
  const worker = new Worker(new URL("./sqlite_checkpoint_worker.ts", import.meta.url), { type: "module" });
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(`checkpointer thread failed: ${e.message}`));
      };
    });
  try {
    const ready = next();
    worker.postMessage({ path, periodMs });
    const answer = await ready;
    if (answer !== "ready") throw new Error(`Cannot start the checkpointer: ${(answer as { error?: string }).error}`);
  } catch (error) {
    worker.terminate();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    stop: () =>
      stopping ??= (async () => {
        const stopped = next();
        worker.postMessage("stop");
        await stopped.catch(() => {});
        worker.terminate();
      })(),
  };
}
