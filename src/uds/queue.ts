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
  /** Ring buffer: `#count` items starting at `#head`; slots are cleared when read so items can be collected. */
  #ring: (T | undefined)[];
  #head = 0;
  #count = 0;
  #skipped = 0;
  #waiter: ((item: QueueItem<T> | null) => void) | null = null;
  #closed = false;

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
    this.#ring = new Array<T | undefined>(this.capacity);
  }

  /** Items waiting to be read. */
  get size(): number {
    return this.#count;
  }

  /** Adds an item, dropping the oldest when full. O(1); never blocks. */
  push(item: T): void {
    if (this.#closed) return;
    if (this.#waiter) {
      const resolve = this.#waiter;
      this.#waiter = null;
      resolve({ type: "event", event: item });
      return;
    }
    if (this.#count === this.capacity) {
      // Full: the new item overwrites the oldest, which the reader will never see.
      this.#ring[this.#head] = item;
      this.#head = (this.#head + 1) % this.capacity;
      this.#skipped++;
      return;
    }
    this.#ring[(this.#head + this.#count) % this.capacity] = item;
    this.#count++;
  }

  /** The next item; null once closed. */
  next(): Promise<QueueItem<T> | null> {
    if (this.#skipped) {
      const skipped = this.#skipped;
      this.#skipped = 0;
      return Promise.resolve({ type: "lagged", skipped });
    }
    if (this.#count) {
      const event = this.#ring[this.#head] as T;
      this.#ring[this.#head] = undefined;
      this.#head = (this.#head + 1) % this.capacity;
      this.#count--;
      return Promise.resolve({ type: "event", event });
    }
    if (this.#closed) return Promise.resolve(null);
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  /** Ends the queue; a pending read resolves null. */
  close(): void {
    this.#closed = true;
    this.#ring.fill(undefined);
    this.#head = 0;
    this.#count = 0;
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.(null);
  }
}
