/**
 * Authentication of the admin panel (spec 2 §4.2): one operator password
 * (`admin_password`), compared in constant time; login attempts limited per
 * client address; sessions as random tokens kept only as SHA-256 digests,
 * with an idle and an absolute lifetime.
 *
 * Only the digest of the password is kept, never the password itself, and
 * neither the password nor a token is ever logged.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createHash, timingSafeEqual } from "node:crypto";
import { addressGroup } from "../net/mod.ts";
import type { Clock } from "../util/clock.ts";
import { FailureThrottle, type FailureThrottleOptions } from "../util/failure_throttle.ts";

/**
 * Back-off and overall budget of failed admin logins (issue 14), on top of
 * the per-address window: an address failing more than 5 times in a row
 * waits 1 min, then 2, 4 ... up to 1 h; all addresses together get 30
 * failures per 10 min (3 a minute once spent), so a botnet's many addresses
 * do not multiply the guesses.
 */
export const ADMIN_LOGIN_LIMITS: FailureThrottleOptions = {
  freeFailures: 5,
  baseDelayMs: 60_000,
  maxDelayMs: 3_600_000,
  budget: 30,
  budgetWindowMs: 600_000,
};

/** Settings of {@link AdminAuth}. */
export interface AdminAuthOptions {
  /** The operator password; null disables the panel. */
  readonly password: string | null;
  readonly clock: Clock;
  /** Login attempts allowed per address and window (default 5). */
  readonly maxAttempts?: number;
  /** Rate-limit window, ms (default 60 s). */
  readonly windowMs?: number;
  /** A session ends after this long unused, ms (default 30 min). */
  readonly sessionIdleMs?: number;
  /** A session ends this long after login at the latest, ms (default 12 h). */
  readonly sessionMaxMs?: number;
  /** Sessions kept at once; the oldest goes first (default 32). */
  readonly maxSessions?: number;
  /** Addresses tracked by the rate limiter; the least recent goes first (default 4096). */
  readonly maxTrackedAddresses?: number;
  /** Back-off and overall failure budget (default {@link ADMIN_LOGIN_LIMITS}). */
  readonly failures?: FailureThrottleOptions;
}

/** Outcome of a login attempt. */
export type LoginOutcome =
  | { readonly ok: true; readonly token: string }
  | { readonly ok: false; readonly reason: "disabled" | "wrong-password" }
  | { readonly ok: false; readonly reason: "rate-limited"; readonly retryAfterSecs: number };

interface Attempts {
  count: number;
  windowStart: number;
}

interface AdminSession {
  readonly created: number;
  lastSeen: number;
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** Password check, login rate limit and sessions of the admin panel. */
export class AdminAuth {
  readonly #digest: Buffer | null;
  readonly #clock: Clock;
  readonly #maxAttempts: number;
  readonly #windowMs: number;
  readonly #idleMs: number;
  readonly #maxMs: number;
  readonly #maxSessions: number;
  readonly #maxTracked: number;
  readonly #attempts = new Map<string, Attempts>();
  readonly #sessions = new Map<string, AdminSession>();
  readonly #failures: FailureThrottle;

  constructor(o: AdminAuthOptions) {
    this.#digest = o.password === null || o.password === "" ? null : sha256(o.password);
    this.#clock = o.clock;
    this.#maxAttempts = o.maxAttempts ?? 5;
    this.#windowMs = o.windowMs ?? 60_000;
    this.#idleMs = o.sessionIdleMs ?? 30 * 60_000;
    this.#maxMs = o.sessionMaxMs ?? 12 * 3_600_000;
    this.#maxSessions = o.maxSessions ?? 32;
    this.#maxTracked = o.maxTrackedAddresses ?? 4096;
    this.#failures = new FailureThrottle({ ...(o.failures ?? ADMIN_LOGIN_LIMITS), maxKeys: this.#maxTracked });
  }

  /** False when no password is configured: the panel refuses every login. */
  get enabled(): boolean {
    return this.#digest !== null;
  }

  /** Sessions alive now. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * Tries `password` for a client at `address` (an IPv6 /64 counts as one
   * client). A refused attempt (window, back-off or overall budget) is not
   * tried at all.
   */
  login(password: string, address: string): LoginOutcome {
    if (!this.#digest) return { ok: false, reason: "disabled" };
    const now = this.#clock.now();
    const client = addressGroup(address);
    const attempts = this.#attemptsOf(client, now);
    if (attempts.count >= this.#maxAttempts) {
      const retryAfterSecs = Math.max(1, Math.ceil((attempts.windowStart + this.#windowMs - now) / 1000));
      return { ok: false, reason: "rate-limited", retryAfterSecs };
    }
    const wait = this.#failures.wait(client, now);
    if (wait > 0) return { ok: false, reason: "rate-limited", retryAfterSecs: Math.max(1, Math.ceil(wait / 1000)) };
    attempts.count++;
    // Both sides are 32-byte digests, so the comparison takes the same time whatever the input.
    if (!timingSafeEqual(sha256(password), this.#digest)) {
      this.#failures.failed(client, now);
      return { ok: false, reason: "wrong-password" };
    }
    this.#attempts.delete(client);
    this.#failures.succeeded(client);
    return { ok: true, token: this.#newSession(now) };
  }

  /** True when `token` names a live session (and refreshes its idle timer). */
  check(token: string | undefined): boolean {
    if (!token || !this.#digest) return false;
    const key = sha256(token).toString("hex");
    const session = this.#sessions.get(key);
    if (!session) return false;
    const now = this.#clock.now();
    if (now - session.lastSeen > this.#idleMs || now - session.created > this.#maxMs) {
      this.#sessions.delete(key);
      return false;
    }
    session.lastSeen = now;
    return true;
  }

  /** Ends a session; false when it was not live. */
  logout(token: string | undefined): boolean {
    return token ? this.#sessions.delete(sha256(token).toString("hex")) : false;
  }

  #attemptsOf(address: string, now: number): Attempts {
    let attempts = this.#attempts.get(address);
    if (attempts && now - attempts.windowStart >= this.#windowMs) attempts = undefined;
    if (!attempts) attempts = { count: 0, windowStart: now };
    // Re-insert so the map's order is least recently used first.
    this.#attempts.delete(address);
    this.#attempts.set(address, attempts);
    while (this.#attempts.size > this.#maxTracked) {
      const oldest = this.#attempts.keys().next().value;
      if (oldest === undefined) break;
      this.#attempts.delete(oldest);
    }
    return attempts;
  }

  #newSession(now: number): string {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const token = Buffer.from(bytes).toString("base64url");
    this.#sessions.set(sha256(token).toString("hex"), { created: now, lastSeen: now });
    while (this.#sessions.size > this.#maxSessions) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
    return token;
  }
}
