/**
 * Password hashing of the companion services: Argon2id (`src/net/argon2.ts`,
 * shared with the account backend). Used for the
 * user table's passwords, the two `user_manager` roles and the `command`
 * service's three fragments (spec 2 §5.3, §5.5; the original kept the role
 * passwords in its source and the fragments in a page, peers §5).
 *
 * @module
 */

import { argon2Check, argon2Hash, type Argon2Params, DEFAULT_ARGON2 } from "../net/argon2.ts";

export { type Argon2Params, DEFAULT_ARGON2, TEST_ARGON2 } from "../net/argon2.ts";

/** Hashes and verifies passwords. */
export interface PasswordHasher {
  /** A new PHC string for `password`. */
  hash(password: string): Promise<string>;
  /** Whether `password` matches `hash`; false (never a throw) for a malformed or empty hash. */
  verify(hash: string, password: string): Promise<boolean>;
}

/** An Argon2id {@link PasswordHasher} with `params` for new hashes (verification uses each hash's own). */
export function argon2Hasher(params: Argon2Params = DEFAULT_ARGON2): PasswordHasher {
  return {
    hash: (password) => argon2Hash(password, params),
    verify: (hash, password) => argon2Check(password, hash),
  };
}

/** Longest password or fragment accepted anywhere (bounds hashing work per request). */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * The secret the command service's hash covers: the three fragments joined
 * by NUL, so `"ab" + "c"` and `"a" + "bc"` differ (the original concatenated
 * them). `null` when a fragment is missing, empty, too long or holds a NUL.
 */
export function joinFragments(fragments: readonly (string | null | undefined)[]): string | null {
  if (fragments.length !== 3) return null;
  const parts: string[] = [];
  for (const f of fragments) {
    if (typeof f !== "string" || f === "" || f.length > MAX_PASSWORD_LENGTH || f.includes("\0")) return null;
    parts.push(f);
  }
  return parts.join("\0");
}

/** The two `user_manager` roles (spec 2 §5.3). */
export type Role = "super" | "admin";

/** Role hashes from the configuration. */
export interface RoleHashes {
  readonly super: string;
  readonly admin: string;
}

/**
 * The role `password` opens: the super administrator's first, then the
 * administrator's; `null` when neither matches or both are unset.
 */
export async function roleOf(hasher: PasswordHasher, hashes: RoleHashes, password: unknown): Promise<Role | null> {
  if (typeof password !== "string" || password === "" || password.length > MAX_PASSWORD_LENGTH) return null;
  if (hashes.super && await hasher.verify(hashes.super, password)) return "super";
  if (hashes.admin && await hasher.verify(hashes.admin, password)) return "admin";
  return null;
}
