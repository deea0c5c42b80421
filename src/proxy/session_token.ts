/**
 * The proxy's user tokens (spec 1 §5; extended.md §5.4): a JWT signed HS256
 * with the 64-byte key derived for `jwt` from the shared secret, expiring
 * when the game account's own token does, carrying the game user id.
 *
 * The game account's access token rides along because `/auth/me` and
 * `/ws/live` need it, but never readable: the reference proxy put it in the
 * JWT payload in clear, where any script of the page (and anything that
 * reads browser storage) could take it. Here it is sealed with A256GCM
 * (JWE, `dir`) under a second key derived for `proxy_session`. Only
 * `jose` does the cryptography.
 *
 * @module
 */

import { compactDecrypt, CompactEncrypt, errors, jwtVerify, SignJWT } from "jose";
import type { Clock } from "../util/clock.ts";

/** Keys of the session tokens, derived from the shared secret. */
export interface SessionKeys {
  /** HS256 signing key (`jwt`, 64 bytes). */
  readonly sign: Uint8Array;
  /** A256GCM sealing key of the game token (`proxy_session`, 32 bytes). */
  readonly seal: Uint8Array;
}

/** What a valid token says. */
export interface TokenSession {
  /** Game user id. */
  readonly id: number;
  /** The game account's access token. */
  readonly gameToken: string;
  /** Expiry, epoch seconds. */
  readonly exp: number;
}

/** Why a token was refused; the message is safe to show (it never holds the token). */
export class TokenError extends Error {
  override readonly name = "TokenError";
  /** `expired` or `invalid`. */
  readonly kind: "expired" | "invalid";
  constructor(kind: "expired" | "invalid", message: string) {
    super(message);
    this.kind = kind;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Issues and verifies session tokens. */
export class SessionTokens {
  readonly #keys: SessionKeys;
  readonly #clock: Clock;

  constructor(keys: SessionKeys, clock: Clock) {
    if (keys.sign.length < 32) throw new RangeError("Cannot sign tokens: the signing key is shorter than 32 bytes");
    if (keys.seal.length !== 32) throw new RangeError("Cannot seal tokens: the sealing key must be 32 bytes");
    this.#keys = keys;
    this.#clock = clock;
  }

  /** A token for game user `id` holding `gameToken`, valid until `expiresAt` (epoch ms). */
  async issue(id: number, gameToken: string, expiresAt: number): Promise<string> {
    const sealed = await new CompactEncrypt(encoder.encode(gameToken))
      .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
      .encrypt(this.#keys.seal);
    return await new SignJWT({ id, gt: sealed })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(String(id))
      .setIssuedAt(Math.floor(this.#clock.now() / 1000))
      .setExpirationTime(Math.floor(expiresAt / 1000))
      .sign(this.#keys.sign);
  }

  /** The session of a token; throws {@link TokenError} when it is forged, malformed or expired. */
  async verify(token: string): Promise<TokenSession> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys.sign, {
        algorithms: ["HS256"],
        currentDate: new Date(this.#clock.now()),
        requiredClaims: ["exp", "sub"],
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new TokenError("expired", "token expired; log in again");
      throw new TokenError("invalid", "invalid token");
    }
    const { id, gt, exp } = payload as { id?: unknown; gt?: unknown; exp?: unknown };
    if (!Number.isInteger(id) || typeof gt !== "string" || typeof exp !== "number") {
      throw new TokenError("invalid", "invalid token");
    }
    let gameToken: string;
    try {
      gameToken = decoder.decode((await compactDecrypt(gt, this.#keys.seal)).plaintext);
    } catch {
      throw new TokenError("invalid", "invalid token");
    }
    return { id: id as number, gameToken, exp };
  }
}

/**
 * When a game token expires, from the upstream login's `expireAt` (RFC 3339
 * text, or a number of seconds or milliseconds since the epoch); null when
 * absent or unreadable.
 */
export function parseExpiry(expireAt: string | number | undefined): number | null {
  if (expireAt === undefined) return null;
  if (typeof expireAt === "number") {
    if (!Number.isFinite(expireAt) || expireAt <= 0) return null;
    // Seconds until the year 33658; anything larger is milliseconds.
    return expireAt < 1e12 ? expireAt * 1000 : expireAt;
  }
  const ms = Date.parse(expireAt);
  return Number.isNaN(ms) ? null : ms;
}
