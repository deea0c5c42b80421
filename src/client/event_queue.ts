/**
 * The client's stream of pushed (non-reply) server commands: a bounded buffer
 * plus waiters. A waiter takes the *first* buffered or future item matching
 * its predicate and leaves the others in place, so tests can wait for things
 * in any order; `next()` without a predicate reads the stream strictly in
 * order.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import { ClientError } from "./errors.ts";
import { RingBuffer } from "./ring_buffer.ts";

interface Waiter<T> {
  readonly predicate: ((item: T) => boolean) | undefined;
  readonly what: string;
  readonly resolve: (item: T) => void;
  readonly reject: (error: ClientError) => void;
  timer: TimerHandle | undefined;
}

/** Bounded buffer of items with predicate waiters and an async iterator. */
export class EventQueue<T> {
  readonly #clock: Clock;
  readonly #buffer: RingBuffer<T>;
  #waiters: Waiter<T>[] = [];
  #end: ClientError | null = null;
  #failed = false;

  /** Keeps at most `limit` unconsumed items (oldest dropped first). */
  constructor(limit: number, clock: Clock) {
    this.#buffer = new RingBuffer(limit);
    this.#clock = clock;
  }

  /** Items buffered and not yet taken. */
  get length(): number {
    return this.#buffer.length;
  }

  /** Items discarded because the buffer was full. */
  get dropped(): number {
    return this.#buffer.dropped;
  }

  /** Hands `item` to the first waiter that wants it, else buffers it. */
  push(item: T): void {
    const waiters = this.#waiters;
    for (let i = 0; i < waiters.length; i++) {
      const w = waiters[i]!;
      if (w.predicate && !w.predicate(item)) continue;
      waiters.splice(i, 1);
      this.#clock.clearTimeout(w.timer);
      w.resolve(item);
      return;
    }
    this.#buffer.push(item);
  }

  /**
   * The first item (buffered or future) matching `predicate`; rejects with a
   * `timeout` {@link ClientError} after `timeoutMs` (none when not finite), or
   * with the close error once the stream has ended and nothing matches.
   */
  next(predicate?: (item: T) => boolean, timeoutMs = Infinity, what = "wait for event"): Promise<T> {
    const index = predicate ? this.#buffer.findIndex(predicate) : (this.#buffer.length > 0 ? 0 : -1);
    if (index >= 0) return Promise.resolve(this.#buffer.removeAt(index) as T);
    if (this.#end) return Promise.reject(this.#end.retarget(what));
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = { predicate, what, resolve, reject, timer: undefined };
      if (Number.isFinite(timeoutMs)) {
        waiter.timer = this.#clock.setTimeout(() => {
          const i = this.#waiters.indexOf(waiter);
          if (i >= 0) this.#waiters.splice(i, 1);
          reject(new ClientError("timeout", what, `nothing matching within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.#waiters.push(waiter);
    });
  }

  /** Removes and returns everything buffered, oldest first. */
  drain(): T[] {
    const items = this.#buffer.toArray();
    this.#buffer.clear();
    return items;
  }

  /**
   * Ends the stream: waiters reject with `error`; iterators finish once the
   * buffer is empty, throwing `error` when `failed` (a protocol or I/O error).
   */
  end(error: ClientError, failed: boolean): void {
    if (this.#end) return;
    this.#end = error;
    this.#failed = failed;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) {
      this.#clock.clearTimeout(w.timer);
      w.reject(error.retarget(w.what));
    }
  }

  /** Iterates items in order until the stream ends. */
  async *iterate(): AsyncGenerator<T, void, undefined> {
    for (;;) {
      try {
        yield await this.next();
      } catch (e) {
        if (e instanceof ClientError && this.#end && !this.#failed) return;
        throw e;
      }
    }
  }
}
