/**
 * Failure lockout of the password-checking endpoints (issue 21: repeated
 * failures lock the caller out for a while). Pure bookkeeping over an
 * injected time: `max_failures` failed attempts within `window_secs` lock
 * the key for `lockout_secs`; a success clears it. Bounded in keys: the
 * oldest entry is dropped first, so a flood of addresses cannot grow memory.
 *
 * @module
 */

/** Lockout settings (the configuration's `lockout` sections). */
export interface LockoutPolicy {
  readonly max_failures: number;
  readonly window_secs: number;
  readonly lockout_secs: number;
}

interface Entry {
  /** Start of the current failure window. */
  since: number;
  failures: number;
  /** Locked until this time (epoch ms), or 0. */
  until: number;
}

/** Failure counts and locks per key (an address, or address and user name). */
export class Lockout {
  readonly #policy: LockoutPolicy;
  readonly #maxKeys: number;
  readonly #entries = new Map<string, Entry>();

  constructor(policy: LockoutPolicy, maxKeys = 65536) {
    this.#policy = policy;
    this.#maxKeys = maxKeys;
  }

  /** Milliseconds `key` stays locked at `now`; 0 when it may try. */
  lockedFor(key: string, now: number): number {
    const e = this.#entries.get(key);
    return e && e.until > now ? e.until - now : 0;
  }

  /** Records a failure; returns the lock in milliseconds it caused (0 when none yet). */
  fail(key: string, now: number): number {
    let e = this.#entries.get(key);
    if (e) this.#entries.delete(key); // re-inserted below: most recent last
    if (!e || now - e.since >= this.#policy.window_secs * 1000 || (e.until !== 0 && e.until <= now)) {
      e = { since: now, failures: 0, until: 0 };
    }
    e.failures++;
    if (e.failures >= this.#policy.max_failures) e.until = now + this.#policy.lockout_secs * 1000;
    this.#entries.set(key, e);
    while (this.#entries.size > this.#maxKeys) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    return e.until > now ? e.until - now : 0;
  }

  /** Clears `key` after a success. */
  succeed(key: string): void {
    this.#entries.delete(key);
  }

  /** Keys tracked. */
  get size(): number {
    return this.#entries.size;
  }
}

/** "Too many failed attempts; try again in 15 min" style text for a lock of `ms`. */
export function lockedMessage(ms: number): string {
  const secs = Math.ceil(ms / 1000);
  const when = secs >= 120 ? `${Math.ceil(secs / 60)} min` : `${secs} s`;
  return `Too many failed attempts; try again in ${when}`;
}
