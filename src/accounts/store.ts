/**
 * The account store: users and groups over the {@link Db} seam, with the
 * invariants that must hold whatever the request -- unique names and game
 * accounts (409), and **at least one root** (a user in a group holding ALL):
 * every change that could remove the last root runs in a transaction that
 * first takes the guard row (serializing such changes across processes on
 * PostgreSQL), applies the change, counts the roots and rolls back with
 * `last_root` when none is left.
 *
 * @module
 */

import type { Db, DbParam, DbQueryable } from "../db/mod.ts";
import { dbNum } from "../db/mod.ts";
import { ApiError } from "./errors.ts";
import { DEFAULT_GROUP_ID, PERM } from "./permissions.ts";
import { nameKey } from "./schema.ts";
import {
  type GroupRecord,
  toGroup,
  toUser,
  uniqueViolation,
  USER_COLUMNS,
  USER_FROM,
  type UserRecord,
} from "./store_rows.ts";

/** Game account data kept on a user. */
export interface GameProfile {
  readonly gameId: number;
  readonly name: string | null;
  readonly rks: number | null;
  readonly avatar: string | null;
}

/** A new user. */
export interface NewUser {
  readonly username: string;
  readonly passwordHash: string;
  readonly groupId: number;
  readonly game: GameProfile | null;
  readonly now: number;
  /** When the game data is next refreshed (null = never: no game account). */
  readonly nextSyncAt: number | null;
}

/** Fields a PATCH may change. */
export interface UserPatch {
  readonly username?: string;
  readonly passwordHash?: string;
  readonly groupId?: number;
  /** A new game account (null unlinks). */
  readonly game?: GameProfile | null;
  readonly nextSyncAt?: number | null;
}

/** Changes to a group. */
export interface GroupPatch {
  readonly name?: string;
  readonly permissions?: number;
}

function conflict(error: unknown, what: { username?: string; gameId?: number | null; group?: string }): never {
  const column = uniqueViolation(error);
  if (column === "username_key") throw new ApiError("username_taken", `username "${what.username}" is taken`);
  if (column === "game_id") {
    throw new ApiError("game_account_bound", `game account ${what.gameId} is already linked to another user`);
  }
  if (column === "name_key") throw new ApiError("group_name_taken", `group name "${what.group}" is taken`);
  throw error;
}

/** Users and groups. */
export class AccountStore {
  readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  /** Runs `fn` holding the guard row, then refuses to commit a state without a root. */
  async #guarded<T>(fn: (tx: DbQueryable) => Promise<T>): Promise<T> {
    return await this.db.transaction(async (tx) => {
      await tx.query("UPDATE accounts_meta SET value = value WHERE key = 'guard'");
      const result = await fn(tx);
      const [row] = await tx.query(
        `SELECT count(*) AS n FROM ${USER_FROM} WHERE g.permissions = $1`,
        [PERM.ALL],
      );
      if (dbNum(row?.n) === 0) {
        throw new ApiError("last_root", "refused: it would leave no root user (a user in a group holding ALL)");
      }
      return result;
    });
  }

  async #oneUser(q: DbQueryable, where: string, params: DbParam[]): Promise<UserRecord | null> {
    const [row] = await q.query(`SELECT ${USER_COLUMNS} FROM ${USER_FROM} WHERE ${where}`, params);
    return row ? toUser(row) : null;
  }

  /** The user `id`, or null. */
  user(id: number): Promise<UserRecord | null> {
    return this.#oneUser(this.db, "u.id = $1", [id]);
  }

  /** The user named `username` (case-insensitively), or null. */
  userByName(username: string): Promise<UserRecord | null> {
    return this.#oneUser(this.db, "u.username_key = $1", [nameKey(username)]);
  }

  /** The user linked to game account `gameId`, or null. */
  userByGameId(gameId: number): Promise<UserRecord | null> {
    return this.#oneUser(this.db, "u.game_id = $1", [gameId]);
  }

  /** Every user, by id. */
  async users(): Promise<UserRecord[]> {
    return (await this.db.query(`SELECT ${USER_COLUMNS} FROM ${USER_FROM} ORDER BY u.id`)).map(toUser);
  }

  /** Creates a user; `username_taken`, `game_account_bound` or `unknown_group` when refused. */
  async createUser(u: NewUser): Promise<UserRecord> {
    try {
      return await this.db.transaction(async (tx) => {
        const [group] = await tx.query("SELECT id FROM accounts_groups WHERE id = $1", [u.groupId]);
        if (!group) throw new ApiError("unknown_group", `group ${u.groupId} does not exist`);
        const [row] = await tx.query(
          `INSERT INTO accounts_users (group_id, username, username_key, password_hash, game_id, game_username,
             game_rks, game_avatar, register_time, last_sync_time, next_sync_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
          [
            u.groupId,
            u.username,
            nameKey(u.username),
            u.passwordHash,
            u.game?.gameId ?? null,
            u.game?.name ?? null,
            u.game?.rks ?? null,
            u.game?.avatar ?? null,
            u.now,
            u.game ? u.now : null,
            u.nextSyncAt,
          ],
        );
        return (await this.#oneUser(tx, "u.id = $1", [dbNum(row?.id)]))!;
      });
    } catch (error) {
      conflict(error, { username: u.username, gameId: u.game?.gameId ?? null });
    }
  }

  /** Applies `patch` to user `id`; `last_root` when it would demote the last root. */
  async updateUser(id: number, patch: UserPatch): Promise<UserRecord> {
    const sets: string[] = [];
    const params: DbParam[] = [];
    const set = (column: string, value: DbParam) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (patch.username !== undefined) {
      set("username", patch.username);
      set("username_key", nameKey(patch.username));
    }
    if (patch.passwordHash !== undefined) set("password_hash", patch.passwordHash);
    if (patch.groupId !== undefined) set("group_id", patch.groupId);
    if (patch.game !== undefined) {
      set("game_id", patch.game?.gameId ?? null);
      set("game_username", patch.game?.name ?? null);
      set("game_rks", patch.game?.rks ?? null);
      set("game_avatar", patch.game?.avatar ?? null);
      set("sync_failures", 0);
    }
    if (patch.nextSyncAt !== undefined) set("next_sync_at", patch.nextSyncAt);
    try {
      return await this.#guarded(async (tx) => {
        if (patch.groupId !== undefined) {
          const [group] = await tx.query("SELECT id FROM accounts_groups WHERE id = $1", [patch.groupId]);
          if (!group) throw new ApiError("unknown_group", `group ${patch.groupId} does not exist`);
        }
        if (sets.length) {
          params.push(id);
          await tx.query(`UPDATE accounts_users SET ${sets.join(", ")} WHERE id = $${params.length}`, params);
        }
        const user = await this.#oneUser(tx, "u.id = $1", [id]);
        if (!user) throw new ApiError("user_not_found", `user ${id} does not exist`);
        return user;
      });
    } catch (error) {
      conflict(error, { username: patch.username ?? "", gameId: patch.game?.gameId ?? null });
    }
  }

  /** Deletes user `id` (their sessions go with them); `last_root` for the last root. */
  async deleteUser(id: number): Promise<void> {
    await this.#guarded(async (tx) => {
      const rows = await tx.query("DELETE FROM accounts_users WHERE id = $1 RETURNING id", [id]);
      if (!rows.length) throw new ApiError("user_not_found", `user ${id} does not exist`);
    });
  }

  /** Records a successful login. */
  async touchLogin(id: number, now: number): Promise<void> {
    await this.db.query("UPDATE accounts_users SET last_login_time = $1 WHERE id = $2", [now, id]);
  }

  /** Replaces a password hash (re-hash with stronger parameters; not a password change). */
  async setPasswordHash(id: number, hash: string): Promise<void> {
    await this.db.query("UPDATE accounts_users SET password_hash = $1 WHERE id = $2", [hash, id]);
  }

  /** Every group, by id. */
  async groups(): Promise<GroupRecord[]> {
    return (await this.db.query("SELECT id, name, permissions FROM accounts_groups ORDER BY id")).map(toGroup);
  }

  /** The group `id`, or null. */
  async group(id: number): Promise<GroupRecord | null> {
    const [row] = await this.db.query("SELECT id, name, permissions FROM accounts_groups WHERE id = $1", [id]);
    return row ? toGroup(row) : null;
  }

  /** Creates a group; `group_name_taken` when the name is in use. */
  async createGroup(name: string, permissions: number): Promise<GroupRecord> {
    try {
      const [row] = await this.db.query(
        "INSERT INTO accounts_groups (name, name_key, permissions) VALUES ($1, $2, $3) RETURNING id, name, permissions",
        [name, nameKey(name), permissions],
      );
      return toGroup(row!);
    } catch (error) {
      conflict(error, { group: name });
    }
  }

  /** Changes a group; `last_root` when it would leave no root. */
  async updateGroup(id: number, patch: GroupPatch): Promise<GroupRecord> {
    try {
      return await this.#guarded(async (tx) => {
        if (patch.name !== undefined) {
          await tx.query("UPDATE accounts_groups SET name = $1, name_key = $2 WHERE id = $3", [
            patch.name,
            nameKey(patch.name),
            id,
          ]);
        }
        if (patch.permissions !== undefined) {
          await tx.query("UPDATE accounts_groups SET permissions = $1 WHERE id = $2", [patch.permissions, id]);
        }
        const [row] = await tx.query("SELECT id, name, permissions FROM accounts_groups WHERE id = $1", [id]);
        if (!row) throw new ApiError("group_not_found", `group ${id} does not exist`);
        return toGroup(row);
      });
    } catch (error) {
      conflict(error, { group: patch.name ?? "" });
    }
  }

  /** Deletes an empty group other than the default one. */
  async deleteGroup(id: number): Promise<void> {
    if (id === DEFAULT_GROUP_ID) {
      throw new ApiError("default_group", `group ${id} is where new users go and cannot be deleted`);
    }
    await this.#guarded(async (tx) => {
      const [members] = await tx.query("SELECT count(*) AS n FROM accounts_users WHERE group_id = $1", [id]);
      if (dbNum(members?.n) > 0) {
        throw new ApiError("group_not_empty", `group ${id} has ${dbNum(members?.n)} member(s); move them first`);
      }
      const rows = await tx.query("DELETE FROM accounts_groups WHERE id = $1 RETURNING id", [id]);
      if (!rows.length) throw new ApiError("group_not_found", `group ${id} does not exist`);
    });
  }

  /** A value of the meta table, or null. */
  async meta(key: string): Promise<string | null> {
    const [row] = await this.db.query("SELECT value FROM accounts_meta WHERE key = $1", [key]);
    return row ? String(row.value) : null;
  }
}
