/**
 * At most `max_event_concurrency` plugins busy at once (spec 3 §8): a
 * counting semaphore whose waiters are served in arrival order. Plugins run
 * in their own processes, so this bounds how many cores plugin work can take
 * from the game at a time.
 *
 * @module
 */

/** A counting semaphore. */
export class Slots {
  readonly capacity: number;
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
  }

  /** Slots taken now. */
  get busy(): number {
    return this.#busy;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Takes a slot, waiting for one when all are taken. */
  acquire(): Promise<void> {
    if (this.#busy < this.capacity) {
      this.#busy++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Gives a slot back (to the longest waiter, if any). */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#busy = Math.max(0, this.#busy - 1);
  }
}
