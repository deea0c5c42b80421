/**
 * Addresses locked out of the admin API after too many wrong tokens or
 * one-time codes (tphira: 5 wrong tokens ban the address; 3 wrong codes
 * lock the code's session and the address). Failures are counted in a
 * window; reaching the limit locks the address for a while. This is the
 * "OTP list" of the lua-cpp host table (`add_ip_to_blacklist(ip, false)`):
 * it closes the admin API only, never the game port. Bounded: the oldest
 * entries go first when too many addresses are tracked.
 *
 * @module
 */

import type { Clock } from "../../src/util/clock.ts";

/** Tracked addresses at most (failures and locks together). */
export const MAX_TRACKED = 4096;

/** One locked address. */
export interface Lockout {
  readonly ip: string;
  /** Unix ms when it ends. */
  readonly until: number;
}

/** Failure counting and temporary locks per address. */
export class AddressLockouts {
  readonly #clock: Clock;
  /** address -> failure times within the window */
  readonly #failures = new Map<string, number[]>();
  readonly #locked = new Map<string, number>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The lock of `ip`, or null when it may use the admin API. */
  lockedUntil(ip: string): number | null {
    const until = this.#locked.get(ip);
    if (until === undefined) return null;
    if (until <= this.#clock.now()) {
      this.#locked.delete(ip);
      return null;
    }
    return until;
  }

  /**
   * Counts a failure of `ip`; when `limit` failures fall within `windowMs`
   * the address is locked for `lockMs`. Returns true when this failure locked it.
   */
  fail(ip: string, limit: number, windowMs: number, lockMs: number): boolean {
    const now = this.#clock.now();
    const recent = (this.#failures.get(ip) ?? []).filter((t) => t > now - windowMs);
    recent.push(now);
    this.#failures.delete(ip);
    if (recent.length >= limit) {
      this.lock(ip, lockMs);
      return true;
    }
    this.#failures.set(ip, recent);
    this.#trim(this.#failures);
    return false;
  }

  /** Forgets the failures of `ip` (after a success). */
  succeed(ip: string): void {
    this.#failures.delete(ip);
  }

  /** Locks `ip` for `ms`. */
  lock(ip: string, ms: number): void {
    this.#failures.delete(ip);
    this.#locked.delete(ip);
    this.#locked.set(ip, this.#clock.now() + ms);
    this.#trim(this.#locked);
  }

  /** Lifts the lock of `ip`; false when it had none. */
  unlock(ip: string): boolean {
    this.#failures.delete(ip);
    return this.#locked.delete(ip) && true;
  }

  /** Lifts every lock; returns how many. */
  clear(): number {
    const n = this.list().length;
    this.#locked.clear();
    this.#failures.clear();
    return n;
  }

  /** The locks in force, soonest end first. */
  list(): Lockout[] {
    const now = this.#clock.now();
    const out: Lockout[] = [];
    for (const [ip, until] of this.#locked) {
      if (until > now) out.push({ ip, until });
      else this.#locked.delete(ip);
    }
    return out.sort((a, b) => a.until - b.until);
  }

  #trim(map: Map<string, unknown>): void {
    for (const key of map.keys()) {
      if (map.size <= MAX_TRACKED) break;
      map.delete(key);
    }
  }
}
