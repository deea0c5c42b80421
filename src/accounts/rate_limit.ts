/**
 * Failed-attempt limits: a key (an account name, a client address) that
 * failed `limit` times within `windowMs` is refused until the window of its
 * first counted failure ends. A success clears the key. Time is passed in,
 * so the injected clock drives it; the number of keys is bounded (least
 * recently used forgotten first), so no input grows memory without bound.
 *
 * @module
 */

interface Entry {
  start: number;
  failures: number;
}

/** Counts failures per key in fixed windows. */
export class AttemptLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #maxKeys: number;
  readonly #entries = new Map<string, Entry>();

  constructor(limit: number, windowMs: number, maxKeys = 16_384) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.#maxKeys = maxKeys;
  }

  /** Keys tracked now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Milliseconds until `key` may try again; 0 when it may now. */
  retryAfter(key: string, now: number): number {
    const e = this.#entries.get(key);
    if (!e) return 0;
    const end = e.start + this.windowMs;
    if (now >= end) {
      this.#entries.delete(key);
      return 0;
    }
    return e.failures >= this.limit ? end - now : 0;
  }

  /** Counts a failure of `key` at `now`. */
  fail(key: string, now: number): void {
    let e = this.#entries.get(key);
    if (!e || now >= e.start + this.windowMs) e = { start: now, failures: 0 };
    e.failures++;
    this.#entries.delete(key);
    this.#entries.set(key, e);
    while (this.#entries.size > this.#maxKeys) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  /** Forgets `key` (after a success). */
  reset(key: string): void {
    this.#entries.delete(key);
  }
}
