/**
 * A bounded queue with the event bus's lag reporting, for the log stream
 * (log records are pushed by `LogHub.subscribe`, not by the bus): when the
 * reader falls behind the oldest items go and the reader next gets one
 * `lagged` item with the number skipped (spec 3 §4.5 `event_buffer_size`).
 *
 * @module
 */

/** What a reader gets. */
export type QueueItem<T> = { readonly type: "event"; readonly event: T } | {
  readonly type: "lagged";
  readonly skipped: number;
};

/** A bounded single-reader queue. */
export class BoundedQueue<T> {
  readonly capacity: number;
  #items: T[] = [];
  #skipped = 0;
  #waiter: ((item: QueueItem<T> | null) => void) | null = null;
  #closed = false;

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
  }

  /** Adds an item, dropping the oldest when full. O(1) amortised; never blocks. */
  push(item: T): void {
    if (this.#closed) return;
    if (this.#waiter) {
      const resolve = this.#waiter;
      this.#waiter = null;
      resolve({ type: "event", event: item });
      return;
    }
    this.#items.push(item);
    if (this.#items.length > this.capacity) {
      this.#items.shift();
      this.#skipped++;
    }
  }

  /** The next item; null once closed. */
  next(): Promise<QueueItem<T> | null> {
    if (this.#skipped) {
      const skipped = this.#skipped;
      this.#skipped = 0;
      return Promise.resolve({ type: "lagged", skipped });
    }
    if (this.#items.length) return Promise.resolve({ type: "event", event: this.#items.shift()! });
    if (this.#closed) return Promise.resolve(null);
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  /** Ends the queue; a pending read resolves null. */
  close(): void {
    this.#closed = true;
    this.#items = [];
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.(null);
  }
}
