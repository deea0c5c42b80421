/**
 * Random secrets from WebCrypto and their digests: session tokens (256 bits,
 * stored only as SHA-256 digests), the CSRF token bound to a session, and
 * the verification token a registrant types as a room name.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** `n` random bytes as base64url. */
export function randomToken(bytes = 32): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

/** Hex SHA-256 of a token: what the database keeps instead of the token. */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/**
 * The CSRF token of a session: HMAC-SHA256 keyed by the session token. Only
 * someone who holds the (HttpOnly) session cookie can compute it, so a
 * cookie planted by another site cannot be paired with a matching header
 * ("signed double submit"); nothing extra is stored.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac("sha256", sessionToken).update("chorus accounts csrf v1").digest("base64url");
}

/** Constant-time comparison of two strings (length is not secret). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A verification token (spec 2 §3): 12 lowercase hex digits (48 bits), a
 * valid room name (`[A-Za-z0-9_-]{1,20}`) that is easy to type in the game.
 */
export function verificationToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex");
}
