/**
 * Argon2id password hashing shared by the account backend and the companion
 * services: `hash-wasm` (never hand-rolled), the standard encoded string
 * `$argon2id$v=19$m=...,t=...,p=...$salt$hash` with a random 16-byte salt, so the
 * parameters travel with each hash and can be raised later.
 *
 * Verification runs only hashes whose parameters are bounded
 * ({@link isArgon2idHash}): a hash from a configuration file or a damaged
 * row must not make one check cost gigabytes or minutes.
 *
 * @module
 */

import { argon2id, argon2Verify } from "hash-wasm";

/** Argon2id cost parameters. */
export interface Argon2Params {
  /** Memory in KiB. */
  readonly memorySize: number;
  /** Passes. */
  readonly iterations: number;
  /** Lanes. */
  readonly parallelism: number;
}

/** Production parameters (OWASP Password Storage Cheat Sheet, Argon2id option 5: m=19 MiB, t=2, p=1; ~60 ms here). */
export const DEFAULT_ARGON2: Argon2Params = { memorySize: 19456, iterations: 2, parallelism: 1 };

/** Cheap parameters for tests only (hashes stay valid Argon2id and verify the same way); never in production. */
export const TEST_ARGON2: Argon2Params = { memorySize: 256, iterations: 1, parallelism: 1 };

/** Hashes `password` with `params` and a fresh random salt. */
export async function argon2Hash(password: string, params: Argon2Params): Promise<string> {
  return await argon2id({
    password,
    salt: crypto.getRandomValues(new Uint8Array(16)),
    parallelism: params.parallelism,
    iterations: params.iterations,
    memorySize: params.memorySize,
    hashLength: 32,
    outputType: "encoded",
  });
}

/** Checks `password` against an encoded hash; false (not an exception) for anything malformed or unbounded. */
export async function argon2Check(password: string, encoded: string): Promise<boolean> {
  if (!isArgon2idHash(encoded)) return false;
  try {
    return await argon2Verify({ password, hash: encoded });
  } catch {
    return false;
  }
}

/** Whether `s` is an Argon2id v19 string with parameters we are willing to run (<= 1 GiB, <= 20 passes, <= 16 lanes). */
export function isArgon2idHash(s: string): boolean {
  const m = /^\$argon2id\$v=19\$m=(\d{1,8}),t=(\d{1,3}),p=(\d{1,2})\$[A-Za-z0-9+/]{11,}\$[A-Za-z0-9+/]{16,}$/.exec(s);
  if (!m) return false;
  const [memory, passes, lanes] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return memory >= 8 && memory <= 1 << 20 && passes >= 1 && passes <= 20 && lanes >= 1 && lanes <= 16;
}

/** The parameters recorded in an encoded hash, or null when it is not Argon2id v19. */
export function paramsOf(encoded: string): Argon2Params | null {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(encoded);
  return m ? { memorySize: Number(m[1]), iterations: Number(m[2]), parallelism: Number(m[3]) } : null;
}

/** True when `encoded` is weaker than `current` in memory or passes (or not Argon2id v19 at all). */
export function weakerThan(encoded: string, current: Argon2Params): boolean {
  const p = paramsOf(encoded);
  return !p || p.memorySize < current.memorySize || p.iterations < current.iterations;
}
