/**
 * Saving the authentication cache (spec 3 §2.2, §8 "auth-cache save 60 s"):
 * only token hashes and identities, never tokens. Each save journals what
 * changed since the previous one, so an idle cache costs nothing.
 *
 * @module
 */

import type { CachedIdentity } from "../../server/auth_cache.ts";
import type { AuthCacheEntry } from "../types.ts";

const signature = (id: CachedIdentity) => `${id.user_id}|${id.name}|${id.language}|${id.cached_at}`;

/** Tracks what of the cache is already saved. */
export class AuthCacheSync {
  #saved = new Map<string, string>();

  /** Marks `entries` as saved (after restoring them at startup). */
  markSaved(entries: readonly (readonly [string, CachedIdentity])[]): void {
    this.#saved = new Map(entries.map(([hash, id]) => [hash, signature(id)]));
  }

  /** The record saving the changes of `entries` since the last call, or null when nothing changed. */
  diff(entries: readonly (readonly [string, CachedIdentity])[]): AuthCacheEntry | null {
    const now = new Map(entries.map(([hash, id]) => [hash, signature(id)]));
    const set: [string, number, string, string, number][] = [];
    for (const [hash, id] of entries) {
      if (this.#saved.get(hash) !== now.get(hash)) set.push([hash, id.user_id, id.name, id.language, id.cached_at]);
    }
    const del = [...this.#saved.keys()].filter((hash) => !now.has(hash));
    this.#saved = now;
    return set.length || del.length ? { t: "auth", set, del } : null;
  }
}
