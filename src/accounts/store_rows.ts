/**
 * Records of the account store and their mapping from rows of either
 * backend (int8 as strings or numbers, booleans as 0/1), plus the detection
 * of unique-constraint violations in both dialects' words.
 *
 * @module
 */

import { dbNum, type DbRow } from "../db/mod.ts";

/** A user with their group's permissions. */
export interface UserRecord {
  readonly id: number;
  readonly groupId: number;
  /** Permissions of the user's group. */
  readonly permissions: number;
  readonly username: string;
  readonly passwordHash: string;
  readonly gameId: number | null;
  readonly gameUsername: string | null;
  readonly gameRks: number | null;
  readonly gameAvatar: string | null;
  readonly registerTime: number;
  readonly lastLoginTime: number | null;
  readonly lastSyncTime: number | null;
  readonly syncFailures: number;
  readonly nextSyncAt: number | null;
}

/** A group. */
export interface GroupRecord {
  readonly id: number;
  readonly name: string;
  readonly permissions: number;
}

/** Columns selected for a {@link UserRecord} (`u` = users, `g` = groups). */
export const USER_COLUMNS = `u.id, u.group_id, g.permissions, u.username, u.password_hash, u.game_id, u.game_username,
  u.game_rks, u.game_avatar, u.register_time, u.last_login_time, u.last_sync_time, u.sync_failures, u.next_sync_at`;

/** FROM clause matching {@link USER_COLUMNS}. */
export const USER_FROM = "accounts_users u JOIN accounts_groups g ON g.id = u.group_id";

function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : dbNum(v);
}

function textOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

/** A user row as a record. */
export function toUser(r: DbRow): UserRecord {
  return {
    id: dbNum(r.id),
    groupId: dbNum(r.group_id),
    permissions: dbNum(r.permissions),
    username: String(r.username),
    passwordHash: String(r.password_hash),
    gameId: numOrNull(r.game_id),
    gameUsername: textOrNull(r.game_username),
    gameRks: numOrNull(r.game_rks),
    gameAvatar: textOrNull(r.game_avatar),
    registerTime: dbNum(r.register_time),
    lastLoginTime: numOrNull(r.last_login_time),
    lastSyncTime: numOrNull(r.last_sync_time),
    syncFailures: dbNum(r.sync_failures ?? 0),
    nextSyncAt: numOrNull(r.next_sync_at),
  };
}

/** A group row as a record. */
export function toGroup(r: DbRow): GroupRecord {
  return { id: dbNum(r.id), name: String(r.name), permissions: dbNum(r.permissions) };
}

/**
 * The column of a unique-constraint violation (`username_key`, `game_id`,
 * `name_key`), or null when `error` is something else. SQLite says
 * `UNIQUE constraint failed: accounts_users.username_key`; PostgreSQL gives
 * SQLSTATE 23505 and the constraint name `accounts_users_username_key_key`.
 */
export function uniqueViolation(error: unknown): string | null {
  const e = error as { code?: unknown; constraint_name?: unknown; message?: unknown };
  const message = typeof e?.message === "string" ? e.message : "";
  const sqlite = /UNIQUE constraint failed: \w+\.(\w+)/.exec(message);
  if (sqlite) return sqlite[1]!;
  if (e?.code === "23505") {
    const name = typeof e.constraint_name === "string" ? e.constraint_name : message;
    for (const column of ["username_key", "game_id", "name_key"]) if (name.includes(column)) return column;
    return "unknown";
  }
  return null;
}
