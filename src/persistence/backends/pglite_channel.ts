/**
 * One worker of the embedded database (`pglite_worker.ts`) and the requests
 * waiting for its replies (`pglite_worker_db.ts` owns the channels: one at a
 * time, a new one after a worker died). A worker that dies fails every
 * pending request: as transient (`CONNECTION_CLOSED`) once it had answered,
 * as {@link WorkerStartError} if it never did.
 *
 * @module
 */

import type { WireError, WorkerReply, WorkerRequest } from "./pglite_worker.ts";
import type { Row } from "./sql_db.ts";

/** A database error from the worker, with the SQLSTATE `code` PGlite gave it. */
export class PgliteWorkerError extends Error {
  readonly code: string | undefined;
  constructor(e: WireError) {
    super(e.message);
    this.name = "PgliteWorkerError";
    this.code = e.code;
  }
}

/** The worker could not be started or loaded (a build without the worker file, a runtime without workers). */
export class WorkerStartError extends Error {
  override readonly name = "WorkerStartError";
}

/** A request without its id (the channel numbers them). */
export type Op = WorkerRequest extends infer R ? R extends WorkerRequest ? Omit<R, "id"> : never : never;
type Waiter = { resolve: (rows: Row[]) => void; reject: (error: Error) => void };

/** One worker and its pending requests. */
export class Channel {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Waiter>();
  #next = 1;
  #answered = false;
  #gone: Error | null = null;
  #terminated = false;

  constructor(url: URL) {
    try {
      this.#worker = new Worker(url, { type: "module" });
    } catch (error) {
      throw new WorkerStartError(`Cannot start the embedded database's worker: ${String(error)}`, { cause: error });
    }
    this.#worker.onmessage = (e: MessageEvent<WorkerReply>) => {
      this.#answered = true;
      const waiter = this.#pending.get(e.data.id);
      this.#pending.delete(e.data.id);
      if ("error" in e.data) waiter?.reject(new PgliteWorkerError(e.data.error));
      else waiter?.resolve(e.data.rows);
    };
    this.#worker.onerror = (e: ErrorEvent) => {
      e.preventDefault(); // An uncaught error in the worker must not take the server down.
      this.#worker.terminate();
      this.#fail(this.#died(e.message || "its worker failed"));
    };
    this.#worker.onmessageerror = () => {
      this.#worker.terminate();
      this.#fail(this.#died("a reply from its worker could not be read"));
    };
  }

  /** Called once when the worker dies by itself. */
  onDied: ((error: Error) => void) | null = null;

  /** Why the worker died by itself (not closed on purpose), or null while it lives. */
  get died(): Error | null {
    return this.#gone && !this.#terminated ? this.#gone : null;
  }

  /** Sends one request; resolves with its rows. */
  call(op: Op): Promise<Row[]> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = this.#next++;
    return new Promise<Row[]>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
        this.#worker.postMessage({ id, ...op });
      } catch (error) {
        this.#pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** Stops the worker; pending and later calls fail (not as transient: the database was closed on purpose). */
  terminate(): void {
    if (this.#gone) return;
    this.#terminated = true;
    this.#worker.terminate();
    this.#fail(new Error("Cannot use the embedded database: it is closed"));
  }

  /** The error of a worker that died: it never started, or (transient, like a lost connection) it stopped. */
  #died(why: string): Error {
    if (!this.#answered) return new WorkerStartError(`Cannot start the embedded database's worker: ${why}`);
    return Object.assign(new Error(`Cannot use the embedded database: ${why}`), { code: "CONNECTION_CLOSED" });
  }

  #fail(error: Error): void {
    if (!this.#gone && !this.#terminated) queueMicrotask(() => this.onDied?.(error));
    this.#gone ??= error;
    for (const waiter of this.#pending.values()) waiter.reject(this.#gone);
    this.#pending.clear();
  }
}
