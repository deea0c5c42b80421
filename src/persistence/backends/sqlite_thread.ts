/**
 * The embedded store's worker thread (issue 15, relay latency at 300
 * rooms). `node:sqlite` is synchronous: whatever SQLite does runs on the
 * thread that calls it, which is the server's event loop. Two kinds of work
 * made its longest stretches there, and once the store is busy this one
 * thread, with a connection of its own to the same file
 * (`sqlite_thread_worker.ts`), takes both over (one thread: each is a V8
 * isolate of ~16-18 MiB of RSS):
 *
 * - WAL checkpoints. SQLite checkpoints automatically inside the commit
 *   that grows the log past 1,000 pages: it copies the log into the file
 *   and fsyncs both. With telemetry indexed at thousands of rows a second
 *   that doubled the time of commits and made the longest ones. The store's
 *   connection turns automatic checkpoints off and the thread checkpoints
 *   every {@link CHECKPOINT_PERIOD_MS}.
 * - Apply batches (1-26 ms each at 300 rooms): the statements of one batch
 *   go over in one message and run in one transaction there; the event
 *   loop only plans them and reads the reply.
 *
 * Crash safety is unchanged: a checkpoint copies committed pages only, the
 * store's own `checkpoint()` (FULL, before journal segments are deleted)
 * still makes everything durable at the points that rely on it, and a
 * batch commits its rows with its watermark. A thread that stops (an
 * uncaught error, or {@link SqliteThread.terminate}) rejects the batches in
 * flight with a transient error ({@link THREAD_LOST_CODE}): the apply
 * worker retries them, and the watermark makes the retry skip whatever the
 * lost run committed.
 *
 * @module
 */

import type { CheckpointCounts } from "../../db/sqlite.ts";
import { type BatchGuard, type GuardedOutcome, type SqlStatement, THREAD_LOST_CODE } from "./sql_db.ts";
import type { ThreadError, ThreadJob, ThreadReply, ThreadRequest } from "./sqlite_thread_worker.ts";
import { workerScript } from "../../util/program_files.ts";

/** How often the thread checkpoints, ms: the log stays within a few MiB at the write rates of 300 rooms. */
export const CHECKPOINT_PERIOD_MS = 1000;

/** How long the thread's connection waits for the main connection's writes (as the main one does for its own), ms. */
export const THREAD_BUSY_TIMEOUT_MS = 5000;

/** Options of {@link startSqliteThread}. */
export interface SqliteThreadOptions {
  /** Checkpoint period, ms (default {@link CHECKPOINT_PERIOD_MS}). */
  readonly periodMs?: number;
  /** The batches' busy timeout, ms (default {@link THREAD_BUSY_TIMEOUT_MS}). */
  readonly busyTimeoutMs?: number;
}

/** A running store thread. */
export interface SqliteThread {
  /** False once the thread stopped or was lost; batches then belong on the main connection. */
  readonly alive: boolean;
  /** Resolves when the thread is lost (never on {@link stop}). */
  readonly lost: Promise<void>;
  /** Runs a guarded batch on the thread's connection (see `SqlDb.runGuarded`). */
  runGuarded(guard: BatchGuard, statements: readonly SqlStatement[]): Promise<GuardedOutcome>;
  /**
   * Runs `wal_checkpoint(FULL)` on the thread's connection after the
   * batches sent before it, waiting for the writer's lock up to the busy
   * timeout there rather than on the caller's thread; resolves to its counts.
   */
  checkpoint(): Promise<CheckpointCounts>;
  /** Resolves once no batch (or checkpoint) is in flight. */
  idle(): Promise<void>;
  /** Waits for the batches in flight, then stops the thread after its connection is closed. */
  stop(): Promise<void>;
  /** Ends the thread at once, as a crash would: batches in flight reject with a transient error. */
  terminate(): void;
}

/** The error a batch (or checkpoint) rejects with when the thread is lost: transient, so it is retried. */
function lostError(why: string): Error {
  return Object.assign(new Error(`The store's thread stopped (${why}); the batch is retried`), {
    code: THREAD_LOST_CODE,
  });
}

/** An error of the thread as the main connection would have thrown it (same message, `code`, `errcode`). */
function rebuild(fields: ThreadError): Error {
  const { message, ...rest } = fields;
  return Object.assign(new Error(message), rest);
}

/** Starts the store's thread on the SQLite file at `path`; resolves once its connection is open. */
export async function startSqliteThread(path: string, options: SqliteThreadOptions = {}): Promise<SqliteThread> {
  const worker = new Worker(workerScript("src/persistence/backends/sqlite_thread_worker.ts"), { type: "module" });
  const pending = new Map<number, PromiseWithResolvers<unknown>>();
  const lost = Promise.withResolvers<void>();
  const stopped = Promise.withResolvers<void>();
  const opened = Promise.withResolvers<void>();
  let alive = false;
  let nextId = 0;
  let last: Promise<unknown> = Promise.resolve();
  let stopping: Promise<void> | undefined;
  const die = (why: string) => {
    worker.terminate();
    opened.reject(new Error(`Cannot start the store's thread: ${why}`));
    stopped.resolve();
    if (!alive) return;
    alive = false;
    for (const p of pending.values()) p.reject(lostError(why));
    pending.clear();
    lost.resolve();
  };
  worker.onmessage = (e: MessageEvent<ThreadReply>) => {
    const m = e.data;
    if (m.t === "done" || m.t === "error") {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.t === "error") p?.reject(rebuild(m.error));
      else p?.resolve(m.result);
    } else if (m.t === "ready") opened.resolve();
    else if (m.t === "failed") opened.reject(new Error(`Cannot start the store's thread: ${m.error}`));
    else stopped.resolve();
  };
  worker.onerror = (e) => {
    e.preventDefault();
    die(e.message);
  };
  worker.onmessageerror = () => die("a message could not be read");
  try {
    worker.postMessage(
      {
        t: "open",
        path,
        periodMs: options.periodMs ?? CHECKPOINT_PERIOD_MS,
        busyTimeoutMs: options.busyTimeoutMs ?? THREAD_BUSY_TIMEOUT_MS,
      } satisfies ThreadRequest,
    );
    await opened.promise;
  } catch (error) {
    worker.terminate();
    throw error;
  }
  alive = true;
  /** Sends `job` in one message; resolves to the thread's result. */
  const request = <T>(job: ThreadJob): Promise<T> => {
    if (!alive || stopping) return Promise.reject(lostError("it is not running"));
    const id = nextId++;
    const p = Promise.withResolvers<unknown>();
    pending.set(id, p);
    try {
      // One message: a batch's statement texts and their JSON parameters, copied once.
      worker.postMessage({ ...job, id } satisfies ThreadRequest);
    } catch (error) {
      pending.delete(id); // A parameter that cannot be copied: the batch's own failure.
      return Promise.reject(error);
    }
    last = p.promise;
    return p.promise as Promise<T>;
  };
  const idle = async () => {
    for (let seen = last;; seen = last) {
      await seen.catch(() => {});
      if (seen === last) return;
    }
  };
  return {
    get alive() {
      return alive && stopping === undefined;
    },
    lost: lost.promise,
    runGuarded: (guard, statements) => request<GuardedOutcome>({ t: "batch", guard, statements }),
    checkpoint: () => request<CheckpointCounts>({ t: "checkpoint" }),
    idle,
    stop: () =>
      stopping ??= (async () => {
        await idle();
        if (alive) {
          worker.postMessage({ t: "stop" } satisfies ThreadRequest);
          await stopped.promise;
        }
        alive = false;
        worker.terminate();
      })(),
    terminate: () => die("terminated"),
  };
}
