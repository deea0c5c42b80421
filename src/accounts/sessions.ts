/**
 * Login sessions: a random 256-bit token in an HttpOnly, SameSite=Lax
 * cookie; the server keeps only its SHA-256 digest with the user and the
 * expiry, so a session can be revoked (logout, password change, user
 * deleted) and a stolen database opens nothing. A session lasts 12 hours;
 * `remember` makes it 30 days and the cookie persistent (the original's
 * remember token lived a year and was on by default). The CSRF token is
 * derived from the session token (`tokens.ts`) and sent in a readable
 * cookie and the `X-CSRF-Token` response header.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { SessionStore, SessionWithUser } from "./store_sessions.ts";
import { csrfTokenFor, randomToken, tokenDigest } from "./tokens.ts";

/** Cookie holding the session token (HttpOnly). */
export const SESSION_COOKIE = "chorus_session";
/** Cookie holding the CSRF token (readable by the page's scripts). */
export const CSRF_COOKIE = "chorus_csrf";
/** Request and response header carrying the CSRF token. */
export const CSRF_HEADER = "X-CSRF-Token";

/** Lifetime of a session without `remember`. */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** Lifetime of a remembered session (spec 2 §4.1 `remember`; 30 days, not a year). */
export const REMEMBER_TTL_MS = 30 * 86_400_000;

/** A session just opened. */
export interface OpenedSession {
  readonly token: string;
  readonly csrf: string;
  readonly expiresAt: number;
  readonly remember: boolean;
}

/** Options of {@link Sessions}. */
export interface SessionsOptions {
  readonly store: SessionStore;
  readonly clock: Clock;
  readonly ttlMs?: number;
  readonly rememberMs?: number;
}

/** Opening, resolving and revoking sessions, and their cookies. */
export class Sessions {
  readonly #store: SessionStore;
  readonly #clock: Clock;
  readonly #ttl: number;
  readonly #remember: number;

  constructor(o: SessionsOptions) {
    this.#store = o.store;
    this.#clock = o.clock;
    this.#ttl = o.ttlMs ?? SESSION_TTL_MS;
    this.#remember = o.rememberMs ?? REMEMBER_TTL_MS;
  }

  /** Opens a session for `userId`. */
  async open(userId: number, remember: boolean, ip: string | null): Promise<OpenedSession> {
    const token = randomToken(32);
    const now = this.#clock.now();
    const expiresAt = now + (remember ? this.#remember : this.#ttl);
    await this.#store.create({ digest: tokenDigest(token), userId, createdAt: now, expiresAt, remember, ip });
    return { token, csrf: csrfTokenFor(token), expiresAt, remember };
  }

  /** The live session of `token` with its user, or null (unknown, revoked or expired). */
  async resolve(token: string | undefined): Promise<SessionWithUser | null> {
    if (!token || token.length > 128) return null;
    return await this.#store.find(tokenDigest(token), this.#clock.now());
  }

  /** Ends the session of `token`. */
  async revoke(token: string): Promise<boolean> {
    return await this.#store.delete(tokenDigest(token));
  }

  /** Ends every session of `userId` but `keepToken`'s; returns how many ended. */
  async revokeAll(userId: number, keepToken: string | null = null): Promise<number> {
    return await this.#store.deleteForUser(userId, keepToken === null ? null : tokenDigest(keepToken));
  }

  /** Deletes expired sessions. */
  async purge(): Promise<number> {
    return await this.#store.purgeExpired(this.#clock.now());
  }

  /** `Set-Cookie` values of an opened session. */
  cookies(s: OpenedSession, secure: boolean): string[] {
    const tail = secure ? "; Secure" : "";
    const age = s.remember ? `; Max-Age=${Math.max(0, Math.floor((s.expiresAt - this.#clock.now()) / 1000))}` : "";
    return [
      `${SESSION_COOKIE}=${s.token}; Path=/; HttpOnly; SameSite=Lax${age}${tail}`,
      `${CSRF_COOKIE}=${s.csrf}; Path=/; SameSite=Strict${age}${tail}`,
    ];
  }

  /** `Set-Cookie` values that delete both cookies. */
  clearCookies(secure: boolean): string[] {
    const tail = secure ? "; Secure" : "";
    return [
      `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${tail}`,
      `${CSRF_COOKIE}=; Path=/; SameSite=Strict; Max-Age=0${tail}`,
    ];
  }
}
