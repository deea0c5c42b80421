/**
 * How many upstream requests run at once (issue 15). Deno's `fetch` opens a
 * new connection whenever none is idle and keeps every one for 90 s: a round
 * ending in 300 rooms asked for 2,400 records at once and left 2,400 idle
 * connections to the API (with TLS, tens of KiB each) in the server for the
 * next minute and a half, and a burst of logins does the same. With at most
 * {@link DEFAULT_MAX_CONCURRENT} requests in flight the pool never needs more
 * connections than that; the others wait their turn, in order, inside their
 * attempt's deadline.
 *
 * @module
 */

/** Upstream requests in flight at most, per process (all base URLs together). */
export const DEFAULT_MAX_CONCURRENT = 64;

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** A counting semaphore with first-come order and abortable waits. */
export class RequestSlots {
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
}
