/**
 * Rate limiters (spec 3 §4.1, §5 rule 6, §8): a fixed-window counter keyed by
 * address for new connections, and token buckets for per-session command
 * classes. Both take time as an argument, so they are driven by the server's
 * injected clock.
 *
 * @module
 */

/** Counts events per key in fixed windows; bounded in the number of keys. */
export class WindowCounter {
  readonly limit: number;
  readonly windowMs: number;
  readonly maxKeys: number;
  #entries = new Map<string, { start: number; count: number }>();

  constructor(limit: number, windowMs: number, maxKeys = 65536) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.maxKeys = maxKeys;
  }

  /** Records one event for `key` at `now`; false when it goes over the limit. */
  hit(key: string, now: number): boolean {
    let entry = this.#entries.get(key);
    if (!entry || now - entry.start >= this.windowMs) {
      this.#entries.delete(key);
      entry = { start: now, count: 0 };
      this.#entries.set(key, entry);
      this.#prune(now);
    }
    entry.count++;
    return entry.count <= this.limit;
  }

  /** Keys being tracked. */
  get size(): number {
    return this.#entries.size;
  }

  #prune(now: number): void {
    // Entries are in insertion order = window start order; drop expired and excess ones.
    for (const [key, e] of this.#entries) {
      if (this.#entries.size <= this.maxKeys && now - e.start < this.windowMs) break;
      this.#entries.delete(key);
    }
  }
}

/** A token bucket: `capacity` tokens, refilled at `capacity` per `periodMs`. */
export class TokenBucket {
  readonly capacity: number;
  readonly periodMs: number;
  #tokens: number;
  #at: number;

  constructor(capacity: number, periodMs: number, now: number) {
    this.capacity = capacity;
    this.periodMs = periodMs;
    this.#tokens = capacity;
    this.#at = now;
  }

  /** Takes `cost` tokens (default one) at `now`; false, taking nothing, when fewer are left. */
  take(now: number, cost = 1): boolean {
    const elapsed = Math.max(0, now - this.#at);
    this.#tokens = Math.min(this.capacity, this.#tokens + (elapsed * this.capacity) / this.periodMs);
    this.#at = now;
    if (this.#tokens < cost) return false;
    this.#tokens -= cost;
    return true;
  }

  /** Gives back `cost` tokens taken for something that then did not happen (never above the capacity). */
  refund(cost: number): void {
    this.#tokens = Math.min(this.capacity, this.#tokens + cost);
  }
}
