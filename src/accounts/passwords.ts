/**
 * Password hashing of the account backend: Argon2id (`src/net/argon2.ts`,
 * shared with the companion services), the parameters travelling with each
 * hash so that they can be raised later: a login whose stored hash has
 * weaker parameters than the current ones is re-hashed.
 *
 * Default parameters are OWASP's first Argon2id recommendation (m = 19 MiB,
 * t = 2, p = 1): about 60 ms per hash on the reference VPS (BENCHMARKS.md
 * "Account backend"). Hashing runs in a worker (`password_pool.ts`) so a
 * login never stalls the event loop of a game server it is mounted in.
 *
 * @module
 */

import { argon2Check, argon2Hash, type Argon2Params, DEFAULT_ARGON2, weakerThan } from "../net/argon2.ts";

export {
  argon2Check,
  argon2Hash,
  type Argon2Params,
  DEFAULT_ARGON2,
  paramsOf,
  TEST_ARGON2,
  weakerThan,
} from "../net/argon2.ts";

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
