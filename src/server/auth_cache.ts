/**
 * Authentication cache (spec 3 §2.2, §5 rule 1): SHA-256 of the token ->
 * `{user_id, name, language, cached_at}`, least recently used first out,
 * 4096 entries by default. The raw token is never stored; only its hash.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** A cached identity. */
export interface CachedIdentity {
  readonly user_id: number;
  readonly name: string;
  readonly language: string;
  readonly cached_at: number;
}

/**
 * Hex SHA-256 of a token. `node:crypto` hashes a short token in about 1 µs;
 * WebCrypto's asynchronous digest took 40-65 µs, 12 % of a login-heavy
 * server's CPU (BENCHMARKS.md "Load generator").
 */
export function tokenHash(token: string): Promise<string> {
  return Promise.resolve(createHash("sha256").update(token).digest("hex"));
}

/** LRU map from token hash to identity. */
export class AuthCache {
  readonly capacity: number;
  #entries = new Map<string, CachedIdentity>();

  constructor(capacity = 4096) {
    this.capacity = Math.max(0, capacity);
  }

  /** Entries held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Looks up a hash and marks it most recently used. */
  get(hash: string): CachedIdentity | undefined {
    const hit = this.#entries.get(hash);
    if (hit) {
      this.#entries.delete(hash);
      this.#entries.set(hash, hit);
    }
    return hit;
  }

  /** Stores an identity, evicting the least recently used entry when full. */
  set(hash: string, identity: CachedIdentity): void {
    if (this.capacity === 0) return;
    this.#entries.delete(hash);
    this.#entries.set(hash, identity);
    while (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** Forgets every entry of a user (e.g. after a ban). */
  forgetUser(userId: number): void {
    for (const [hash, identity] of this.#entries) if (identity.user_id === userId) this.#entries.delete(hash);
  }

  /** Entries, least recently used first (for persistence). */
  entries(): [string, CachedIdentity][] {
    return [...this.#entries];
  }
}
