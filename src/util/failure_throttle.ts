/**
 * Back-off and an overall failure budget for a login (issue 14): the admin
 * panel's password and OpenUDS tokens. Two bounds on guessing:
 *
 * - per key (a client address, or one key for a local socket): after
 *   `freeFailures` failures in a row each further one makes the key wait
 *   `baseDelayMs`, doubling up to `maxDelayMs`; a success forgets the key;
 * - overall: at most `budget` failures per `budgetWindowMs` from all keys
 *   together (a token bucket), so many addresses do not multiply the
 *   guesses (200 addresses × 5 attempts were 1,000 guesses in 0.4 s). While
 *   it is spent every attempt waits, the right one too: the operator still
 *   has the console (and the other login).
 *
 * A refused attempt is not tried at all, so it tells a guesser nothing.
 * Time is passed in (monotonic ms), so tests drive it with a manual clock.
 *
 * @module
 */

/** Settings of a {@link FailureThrottle}. */
export interface FailureThrottleOptions {
  /** Failures in a row a key may have before it must wait. */
  readonly freeFailures: number;
  /** The first wait, ms; each further failure doubles it. */
  readonly baseDelayMs: number;
  /** The longest wait of one key, ms. */
  readonly maxDelayMs: number;
  /** Failures allowed from all keys together per window. */
  readonly budget: number;
  /** The window the budget refills over, ms. */
  readonly budgetWindowMs: number;
  /** Keys tracked at most; the least recently failed goes first (default 4096). */
  readonly maxKeys?: number;
}

interface KeyState {
  failures: number;
  until: number;
}

/** Tracks failed attempts per key and overall. */
export class FailureThrottle {
  readonly #o: FailureThrottleOptions;
  readonly #keys = new Map<string, KeyState>();
  readonly #maxKeys: number;
  #tokens: number;
  #at: number | null = null;

  constructor(options: FailureThrottleOptions) {
    this.#o = options;
    this.#maxKeys = options.maxKeys ?? 4096;
    this.#tokens = options.budget;
  }

  /** Ms `key` must wait before its next attempt is tried (0 = now). */
  wait(key: string, now: number): number {
    const own = Math.max(0, (this.#keys.get(key)?.until ?? 0) - now);
    this.#refill(now);
    const overall = this.#tokens >= 1 ? 0 : Math.ceil(((1 - this.#tokens) * this.#o.budgetWindowMs) / this.#o.budget);
    return Math.max(own, overall);
  }

  /** Records a failed attempt of `key`. */
  failed(key: string, now: number): void {
    this.#refill(now);
    this.#tokens = Math.max(0, this.#tokens - 1);
    const state = this.#keys.get(key) ?? { failures: 0, until: 0 };
    this.#keys.delete(key); // re-inserted last: the map is least recently failed first
    state.failures++;
    const over = state.failures - this.#o.freeFailures;
    if (over > 0) {
      state.until = now + Math.min(this.#o.maxDelayMs, this.#o.baseDelayMs * 2 ** Math.min(over - 1, 30));
    }
    this.#keys.set(key, state);
    while (this.#keys.size > this.#maxKeys) this.#keys.delete(this.#keys.keys().next().value!);
  }

  /** Forgets `key`'s failures (it got in). */
  succeeded(key: string): void {
    this.#keys.delete(key);
  }

  /** Failures still allowed overall right now (whole ones). */
  remainingBudget(now: number): number {
    this.#refill(now);
    return Math.floor(this.#tokens);
  }

  #refill(now: number): void {
    if (this.#at !== null && now > this.#at) {
      this.#tokens = Math.min(
        this.#o.budget,
        this.#tokens + ((now - this.#at) * this.#o.budget) / this.#o.budgetWindowMs,
      );
    }
    if (this.#at === null || now > this.#at) this.#at = now;
  }
}
