/**
 * A bounded FIFO that drops its oldest item when full. Storage grows on demand
 * up to the capacity, so thousands of idle clients do not each pre-allocate a
 * full buffer.
 *
 * @module
 */

/** Bounded drop-oldest queue. A capacity of 0 keeps nothing. */
export class RingBuffer<T> {
  /** Most items kept. */
  readonly capacity: number;
  #items: (T | undefined)[] = [];
  #head = 0;
  #size = 0;
  #dropped = 0;

  /** An empty buffer holding at most `capacity` items. */
  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) {
      throw new RangeError(`Cannot create ring buffer: capacity ${capacity} is not a non-negative integer`);
    }
    this.capacity = capacity;
  }

  /** Items currently held. */
  get length(): number {
    return this.#size;
  }

  /** Items pushed but discarded because the buffer was full (or has capacity 0). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Appends `item`, discarding the oldest one when full. */
  push(item: T): void {
    if (this.capacity === 0) {
      this.#dropped++;
      return;
    }
    if (this.#size === this.#items.length && this.#size < this.capacity) this.#grow();
    if (this.#size === this.capacity) {
      this.#items[this.#head] = item;
      this.#head = (this.#head + 1) % this.#items.length;
      this.#dropped++;
      return;
    }
    this.#items[(this.#head + this.#size) % this.#items.length] = item;
    this.#size++;
  }

  /** Removes and returns the oldest item. */
  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#items.length;
    this.#size--;
    return item;
  }

  /** The item `index` places after the oldest, without removing it. */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.#size) return undefined;
    return this.#items[(this.#head + index) % this.#items.length];
  }

  /** Removes the item at `index` (0 = oldest), keeping the order of the rest. */
  removeAt(index: number): T | undefined {
    if (index < 0 || index >= this.#size) return undefined;
    if (index === 0) return this.shift();
    const n = this.#items.length;
    const item = this.#items[(this.#head + index) % n];
    for (let i = index; i < this.#size - 1; i++) {
      this.#items[(this.#head + i) % n] = this.#items[(this.#head + i + 1) % n];
    }
    this.#items[(this.#head + this.#size - 1) % n] = undefined;
    this.#size--;
    return item;
  }

  /** Index of the oldest item matching `predicate`, or -1. */
  findIndex(predicate: (item: T) => boolean): number {
    for (let i = 0; i < this.#size; i++) {
      if (predicate(this.#items[(this.#head + i) % this.#items.length] as T)) return i;
    }
    return -1;
  }

  /** The items, oldest first, as a new array. */
  toArray(): T[] {
    const out = new Array<T>(this.#size);
    for (let i = 0; i < this.#size; i++) out[i] = this.#items[(this.#head + i) % this.#items.length] as T;
    return out;
  }

  /** Removes every item (the dropped count is kept). */
  clear(): void {
    this.#items = [];
    this.#head = 0;
    this.#size = 0;
  }

  #grow(): void {
    const size = Math.min(this.capacity, Math.max(8, this.#items.length * 2));
    const next = new Array<T | undefined>(size);
    for (let i = 0; i < this.#size; i++) next[i] = this.#items[(this.#head + i) % this.#items.length];
    this.#items = next;
    this.#head = 0;
  }
}
