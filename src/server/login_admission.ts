/**
 * Who may start a login (issue 14): `max_pending_auth` bounds logins in
 * flight for everyone together, so one client sending junk tokens that the
 * upstream is slow to reject could take every slot and have real players
 * refused as busy. Two bounds in front of it:
 *
 * - logins in flight per client address (`max_pending_auth_per_ip`; an
 *   IPv6 /64 is one client, `addressGroup`), so one client takes its share
 *   only; loopback has no share of its own (`isLoopbackAddress`: a local
 *   forwarder without the PROXY protocol shows every client as loopback);
 * - tokens the upstream rejected (HTTP 401/403: a definitive answer, unlike
 *   a timeout or a 5xx) are remembered for {@link REJECTED_TOKEN_TTL_MS}, by
 *   their SHA-256 only, in a bounded LRU: the same junk again is answered at
 *   once without a slot or an upstream call.
 *
 * One instance per server (made with its command handlers); its maps hold
 * only logins in flight and a bounded number of hashes.
 *
 * @module
 */

import { addressGroup, isLoopbackAddress } from "../net/mod.ts";

/** How long a rejected token is remembered (ms): long enough to absorb a flood, short enough to forget a typo. */
export const REJECTED_TOKEN_TTL_MS = 30_000;
/** Rejected tokens remembered at most (least recently rejected first out): 4096 × ~100 B. */
export const REJECTED_TOKEN_CAPACITY = 4096;

/** The key of loopback logins, which are not counted per address. */
const LOOPBACK = "loopback";

/** True when an upstream error is its definitive refusal of the token (not an outage). */
export function isTokenRejection(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const status = (error as { status?: unknown }).status;
  return status === 401 || status === 403;
}

/** Per-address logins in flight and recently rejected tokens. */
export class LoginAdmission {
  readonly #pending = new Map<string, number>();
  /** Token hash -> monotonic expiry; insertion order = rejection order. */
  readonly #rejected = new Map<string, number>();
  readonly #capacity: number;
  readonly #ttlMs: number;

  constructor(options: { capacity?: number; ttlMs?: number } = {}) {
    this.#capacity = options.capacity ?? REJECTED_TOKEN_CAPACITY;
    this.#ttlMs = options.ttlMs ?? REJECTED_TOKEN_TTL_MS;
  }

  /**
   * Counts a login of `ip` in flight unless its client already has `limit`;
   * returns the key to {@link leave} with, or null when refused.
   */
  enter(ip: string, limit: number): string | null {
    if (isLoopbackAddress(ip)) return LOOPBACK;
    const key = addressGroup(ip);
    const n = this.#pending.get(key) ?? 0;
    if (n >= limit) return null;
    this.#pending.set(key, n + 1);
    return key;
  }

  /** Ends a login counted by {@link enter}. */
  leave(key: string): void {
    if (key === LOOPBACK) return;
    const n = (this.#pending.get(key) ?? 1) - 1;
    if (n > 0) this.#pending.set(key, n);
    else this.#pending.delete(key);
  }

  /** Logins in flight of `ip`'s client. */
  pendingOf(ip: string): number {
    return this.#pending.get(addressGroup(ip)) ?? 0;
  }

  /** True when the upstream rejected this token hash less than the time-to-live ago. */
  isRejected(hash: string, now: number): boolean {
    const until = this.#rejected.get(hash);
    if (until === undefined) return false;
    if (now < until) return true;
    this.#rejected.delete(hash);
    return false;
  }

  /** Remembers that the upstream rejected this token hash (never the token). */
  rememberRejected(hash: string, now: number): void {
    this.#rejected.delete(hash);
    this.#rejected.set(hash, now + this.#ttlMs);
    while (this.#rejected.size > this.#capacity) this.#rejected.delete(this.#rejected.keys().next().value!);
  }

  /** Rejected token hashes held (expired ones go when looked up or pushed out). */
  get rememberedRejections(): number {
    return this.#rejected.size;
  }
}
