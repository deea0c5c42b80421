/**
 * At most N operations at once, the rest waiting in order; a wait that is
 * aborted leaves the queue and never takes a slot. The upstream client keeps
 * its requests in flight under one (`src/upstream/call.ts`), the load
 * generator its logins.
 *
 * @module
 */

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** A counting semaphore with first-come order and abortable waits. */
export class ConcurrencyLimit {
  readonly #max: number;
  #busy = 0;
  #waiters: Waiter[] = [];
  #head = 0;

  /** At most `max` holders at once (at least 1). */
  constructor(max: number) {
    this.#max = Math.max(1, Math.floor(max));
  }

  /** Slots in all. */
  get limit(): number {
    return this.#max;
  }

  /** Slots held now. */
  get busy(): number {
    return this.#busy;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.#waiters.length - this.#head;
  }

  /** Takes a slot, waiting in order if none is free; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#busy < this.#max) {
      this.#busy++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const i = this.#waiters.indexOf(waiter, this.#head);
          if (i >= 0) this.#waiters.splice(i, 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Gives a slot back: the first waiter gets it, or it becomes free. */
  release(): void {
    const next = this.#waiters[this.#head];
    if (next === undefined) {
      this.#busy = Math.max(0, this.#busy - 1);
      return;
    }
    this.#waiters[this.#head++] = undefined as unknown as Waiter;
    if (this.#head > 64 && this.#head * 2 > this.#waiters.length) {
      this.#waiters = this.#waiters.slice(this.#head);
      this.#head = 0;
    }
    next.signal?.removeEventListener("abort", next.onAbort);
    next.resolve();
  }

  /** Runs `op` holding a slot; rejects without running it if `signal` aborts while it waits. */
  async run<T>(op: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await op();
    } finally {
      this.release();
    }
  }
}
