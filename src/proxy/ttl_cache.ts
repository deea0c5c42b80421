/**
 * A small bounded cache with a time to live: at most `limit` entries (the
 * least recently used goes first), each valid for `ttlMs` on the injected
 * clock. Used for `/auth/me` profiles (spec 1 §2.2: a cached copy).
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";

/** Key -> value, bounded in size and age. */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, { value: V; until: number }>();
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #limit: number;

  constructor(clock: Clock, ttlMs: number, limit: number) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
    this.#limit = Math.max(1, limit);
  }

  /** Entries held (some may have expired). */
  get size(): number {
    return this.#entries.size;
  }

  /** The value of `key` while it is fresh, else undefined. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.until <= this.#clock.now()) return undefined;
    // Re-inserted: the Map's order is the recency order.
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` for `key` for one time to live. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, until: this.#clock.now() + this.#ttlMs });
    while (this.#entries.size > this.#limit) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** Forgets `key`. */
  delete(key: K): void {
    this.#entries.delete(key);
  }
}
