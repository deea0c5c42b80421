/**
 * What is read back into memory at startup: bans (the login path reads them
 * synchronously), settings, and the authentication cache (token hashes
 * only, spec 3 §2.2), after the journal has been replayed.
 *
 * @module
 */

import type { CachedIdentity } from "../../server/auth_cache.ts";
import type { IpBan, UserBan } from "../../server/bans.ts";
import { num, type Queryable } from "../backends/mod.ts";

/** Stored bans by user id and by address. */
export async function loadBans(db: Queryable): Promise<{ users: UserBan[]; ips: IpBan[] }> {
  const users = (await db.query("SELECT user_id, reason, banned_at FROM user_bans ORDER BY user_id")).map((r) => ({
    user_id: num(r.user_id),
    reason: String(r.reason),
    banned_at: num(r.banned_at),
  }));
  const ips = (await db.query("SELECT ip, reason, banned_at FROM ip_bans ORDER BY ip")).map((r) => ({
    ip: String(r.ip),
    reason: String(r.reason),
    banned_at: num(r.banned_at),
  }));
  return { users, ips };
}

/** Every stored setting. */
export async function loadSettings(db: Queryable): Promise<Map<string, unknown>> {
  const rows = await db.query("SELECT key, value FROM settings");
  return new Map(rows.map((r) => [String(r.key), r.value]));
}

/** The newest `limit` cached identities, oldest first (so inserting them in order rebuilds the LRU). */
export async function loadAuthCache(db: Queryable, limit: number): Promise<[string, CachedIdentity][]> {
  const rows = await db.query(
    "SELECT * FROM (SELECT * FROM auth_cache ORDER BY cached_at DESC, token_hash LIMIT $1) t ORDER BY cached_at, token_hash",
    [limit],
  );
  return rows.map((r) => [String(r.token_hash), {
    user_id: num(r.user_id),
    name: String(r.name),
    language: String(r.language),
    cached_at: num(r.cached_at),
  }]);
}
