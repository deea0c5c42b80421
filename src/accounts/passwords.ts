/**
 * Password hashing: Argon2id from `hash-wasm` (never hand-rolled), stored as
 * the standard encoded string `$argon2id$v=19$m=…,t=…,p=…$salt$hash`, so the
 * parameters travel with each hash and can be raised later: a login whose
 * stored hash has weaker parameters than the current ones is re-hashed.
 *
 * Default parameters are OWASP's first Argon2id recommendation (m = 19 MiB,
 * t = 2, p = 1): about 60 ms per hash on the reference VPS (BENCHMARKS.md
 * "Account backend"). Hashing runs in a worker (`password_pool.ts`) so a
 * login never stalls the event loop of a game server it is mounted in.
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

/** Production parameters (OWASP Password Storage Cheat Sheet, Argon2id option 5: m=19 MiB, t=2, p=1). */
export const DEFAULT_ARGON2: Argon2Params = { memorySize: 19456, iterations: 2, parallelism: 1 };

/** Cheap parameters for tests only; never for stored passwords in production. */
export const TEST_ARGON2: Argon2Params = { memorySize: 256, iterations: 1, parallelism: 1 };

/** Hashes and checks passwords. */
export interface PasswordHasher {
  /** The encoded Argon2id hash of `password` with a fresh random salt. */
  hash(password: string): Promise<string>;
  /** True when `password` matches `encoded`; false for a malformed hash. */
  verify(password: string, encoded: string): Promise<boolean>;
  /** True when `encoded` was made with weaker parameters than the current ones. */
  needsRehash(encoded: string): boolean;
  /** Releases workers. */
  close(): void;
}

/** Hashes `password` with `params` (the worker and the inline hasher share this). */
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

/** Checks `password` against an encoded hash; false (not an exception) for anything malformed. */
export async function argon2Check(password: string, encoded: string): Promise<boolean> {
  if (!encoded.startsWith("$argon2id$")) return false;
  try {
    return await argon2Verify({ password, hash: encoded });
  } catch {
    return false;
  }
}

/** The parameters recorded in an encoded hash, or null when it is not Argon2id. */
export function paramsOf(encoded: string): Argon2Params | null {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(encoded);
  return m ? { memorySize: Number(m[1]), iterations: Number(m[2]), parallelism: Number(m[3]) } : null;
}

/** True when `encoded` is weaker than `current` in memory or passes (or not Argon2id v19 at all). */
export function weakerThan(encoded: string, current: Argon2Params): boolean {
  const p = paramsOf(encoded);
  return !p || p.memorySize < current.memorySize || p.iterations < current.iterations;
}

/** Hashing on the calling thread: for tests and tools; the service uses the worker pool. */
export class InlineHasher implements PasswordHasher {
  readonly #params: Argon2Params;
  constructor(params: Argon2Params = DEFAULT_ARGON2) {
    this.#params = params;
  }
  hash(password: string): Promise<string> {
    return argon2Hash(password, this.#params);
  }
  verify(password: string, encoded: string): Promise<boolean> {
    return argon2Check(password, encoded);
  }
  needsRehash(encoded: string): boolean {
    return weakerThan(encoded, this.#params);
  }
  close(): void {}
}

/** Shortest accepted password (spec 2 §8 has 6 on the first-generation page; NIST SP 800-63B asks for 8). */
export const MIN_PASSWORD_LENGTH = 8;
/** Longest accepted password, in characters (bounds hashing work). */
export const MAX_PASSWORD_LENGTH = 256;

/** Why `password` is not acceptable, or null. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `password must have at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}

/** A random password for the root account at first start: 24 characters of base64url (144 bits). */
export function generatePassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}
