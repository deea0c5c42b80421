/**
 * One-time codes for the admin API (tphira's model; spec 3 §4.7 "OTP"),
 * available only while no permanent `admin_token` is configured:
 *
 * - `request(ip)`: a code of 8 characters is printed on the server's
 *   console -- never in a response, never in the logs -- and a session id
 *   (`ssid`) is answered; the code lives 5 minutes;
 * - `verify(ssid, code, ip)`: the right code trades for a temporary token
 *   that works for 4 hours from that address only; using it from another
 *   address revokes it (`token-expired`). Three wrong codes end the session
 *   (`ssid-banned-too-many-attempts`) and lock the address out of the admin
 *   API (`ip-banned-too-many-attempts`).
 *
 * Codes and tokens are kept as SHA-256 hashes and compared in constant time;
 * sessions and tokens are bounded (the oldest go first).
 *
 * @module
 */

import { createHash, timingSafeEqual } from "node:crypto";
import type { Clock } from "../../src/util/clock.ts";
import type { AddressLockouts } from "../state/lockouts.ts";

/** How long a code is valid. */
export const OTP_TTL_MS = 5 * 60_000;
/** How long a temporary token is valid. */
export const TEMP_TOKEN_TTL_MS = 4 * 3_600_000;
/** Wrong codes that end a session and lock the address. */
export const OTP_MAX_FAILURES = 3;
/** Code alphabet: lower-case letters and digits without look-alikes (0/o, 1/l/i). */
export const OTP_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
/** Code length. */
export const OTP_LENGTH = 8;
const MAX_SESSIONS = 32;
const MAX_TOKENS = 64;
const LOCK_MS = 15 * 60_000;

/** SHA-256 of text. */
export function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Constant-time equality of two secrets (compared as SHA-256 digests, so lengths never leak). */
export function secretEquals(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** A random string of `length` characters of `alphabet` (rejection sampling: no bias). */
export function randomString(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** A random token (32 bytes, base64url). */
export function randomToken(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

interface Session {
  readonly code: Buffer;
  readonly expires: number;
  failures: number;
}

interface TempToken {
  readonly ip: string;
  readonly expires: number;
}

/** Outcome of a verification or a token check. */
export type OtpFailure =
  | "invalid-or-expired-otp"
  | "ssid-banned-too-many-attempts"
  | "ip-banned-too-many-attempts"
  | "token-expired";

/** The one-time codes and temporary tokens. */
export class OtpService {
  readonly #clock: Clock;
  readonly #lockouts: AddressLockouts;
  readonly #print: (line: string) => void;
  readonly #sessions = new Map<string, Session>();
  readonly #banned = new Set<string>();
  /** sha256(token) hex -> token */
  readonly #tokens = new Map<string, TempToken>();

  /** `print` shows the code to the operator (the console; never the logs). */
  constructor(clock: Clock, lockouts: AddressLockouts, print: (line: string) => void) {
    this.#clock = clock;
    this.#lockouts = lockouts;
    this.#print = print;
  }

  /** Starts a session and prints its code; answers the session id and how long the code lives. */
  request(ip: string): { ssid: string; expiresIn: number } {
    const now = this.#clock.now();
    this.#prune(now);
    const ssid = crypto.randomUUID();
    const code = randomString(OTP_ALPHABET, OTP_LENGTH);
    this.#sessions.set(ssid, { code: digest(code), expires: now + OTP_TTL_MS, failures: 0 });
    while (this.#sessions.size > MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
    this.#print(`[OTP Request] SSID: ${ssid}, OTP: ${code}, from ${ip}, expires in 5 minutes`);
    return { ssid, expiresIn: OTP_TTL_MS };
  }

  /** Trades a right code for a temporary token bound to `ip`. */
  verify(ssid: string, code: string, ip: string):
    | { ok: true; token: string; expiresAt: number; expiresIn: number }
    | { ok: false; error: OtpFailure } {
    const now = this.#clock.now();
    if (this.#banned.has(ssid)) return { ok: false, error: "ssid-banned-too-many-attempts" };
    const session = this.#sessions.get(ssid);
    if (!session || session.expires <= now) {
      this.#sessions.delete(ssid);
      return { ok: false, error: "invalid-or-expired-otp" };
    }
    if (!timingSafeEqual(digest(code.trim().toLowerCase()), session.code)) {
      session.failures++;
      const locked = this.#lockouts.fail(ip, OTP_MAX_FAILURES, OTP_TTL_MS, LOCK_MS);
      if (session.failures >= OTP_MAX_FAILURES) {
        this.#sessions.delete(ssid);
        this.#banned.add(ssid);
        if (this.#banned.size > MAX_SESSIONS * 4) this.#banned.delete(this.#banned.values().next().value!);
        return { ok: false, error: "ssid-banned-too-many-attempts" };
      }
      return { ok: false, error: locked ? "ip-banned-too-many-attempts" : "invalid-or-expired-otp" };
    }
    this.#sessions.delete(ssid);
    this.#lockouts.succeed(ip);
    const token = randomToken();
    const expiresAt = now + TEMP_TOKEN_TTL_MS;
    this.#tokens.set(digest(token).toString("hex"), { ip, expires: expiresAt });
    while (this.#tokens.size > MAX_TOKENS) this.#tokens.delete(this.#tokens.keys().next().value!);
    return { ok: true, token, expiresAt, expiresIn: TEMP_TOKEN_TTL_MS };
  }

  /**
   * Checks a temporary token: `ok`, `token-expired` (expired, or used from
   * another address -- then it is revoked), or `unknown`.
   */
  check(token: string, ip: string): "ok" | "token-expired" | "unknown" {
    const key = digest(token).toString("hex");
    const entry = this.#tokens.get(key);
    if (!entry) return "unknown";
    if (entry.expires <= this.#clock.now() || entry.ip !== ip) {
      this.#tokens.delete(key);
      return "token-expired";
    }
    return "ok";
  }

  /** Temporary tokens in force. */
  get tokenCount(): number {
    this.#prune(this.#clock.now());
    return this.#tokens.size;
  }

  #prune(now: number): void {
    for (const [k, s] of this.#sessions) if (s.expires <= now) this.#sessions.delete(k);
    for (const [k, t] of this.#tokens) if (t.expires <= now) this.#tokens.delete(k);
  }
}
