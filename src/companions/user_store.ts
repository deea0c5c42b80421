/**
 * The first-generation user table (spec 2 §2.2) on the roles' SQL seam
 * (`src/db`: SQLite embedded by default, PostgreSQL by URL). Columns as the
 * spec lists them, `password` an Argon2id PHC string, plus the bookkeeping
 * of the background profile refresh. Names are unique without regard to
 * ASCII case; a game account binds to at most one user.
 *
 * @module
 */

import { type Db, dbNum, type DbQueryable, type DbRow, migrate, type Migration } from "../db/mod.ts";

/** Table prefix shared by every companion table (roles may share one PostgreSQL database). */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE companion_users (
        id {{id}},
        name TEXT NOT NULL,
        game_id BIGINT NOT NULL UNIQUE,
        game_name TEXT NOT NULL DEFAULT '',
        game_rks DOUBLE PRECISION NOT NULL DEFAULT 0,
        image_url TEXT NOT NULL DEFAULT '',
        password TEXT NOT NULL,
        admin TEXT NOT NULL DEFAULT 'no',
        dev TEXT NOT NULL DEFAULT 'no',
        created_at BIGINT NOT NULL,
        refreshed_at BIGINT,
        refresh_failures INTEGER NOT NULL DEFAULT 0,
        next_refresh_at BIGINT NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX companion_users_name ON companion_users (lower(name));
      CREATE INDEX companion_users_refresh ON companion_users (next_refresh_at);
    `,
  },
];

/** Migrates the user table; part of the `companions` component's steps. */
export async function migrateUsers(db: Db): Promise<void> {
  await migrate(db, "companions_users", MIGRATIONS);
}

/** One user row. */
export interface UserRow {
  id: number;
  name: string;
  game_id: number;
  game_name: string;
  game_rks: number;
  image_url: string;
  /** Argon2id PHC string; never leaves the service. */
  password: string;
  admin: "yes" | "no";
  dev: "yes" | "no";
  /** Epoch milliseconds. */
  created_at: number;
}

/** The user as every endpoint shows it: no password, no hash (the original echoed the password, peers §5.1). */
export interface PublicUser {
  id: number;
  name: string;
  game_id: number;
  game_name: string;
  game_rks: number;
  image_url: string;
  admin: "yes" | "no";
  dev: "yes" | "no";
  /** ISO 8601. */
  created_at: string;
}

/** The public view of a row. */
export function publicUser(u: UserRow): PublicUser {
  return {
    id: u.id,
    name: u.name,
    game_id: u.game_id,
    game_name: u.game_name,
    game_rks: u.game_rks,
    image_url: u.image_url,
    admin: u.admin,
    dev: u.dev,
    created_at: new Date(u.created_at).toISOString(),
  };
}

const COLUMNS = "id, name, game_id, game_name, game_rks, image_url, password, admin, dev, created_at";

function toRow(r: DbRow): UserRow {
  return {
    id: dbNum(r.id),
    name: String(r.name),
    game_id: dbNum(r.game_id),
    game_name: String(r.game_name),
    game_rks: dbNum(r.game_rks),
    image_url: String(r.image_url),
    password: String(r.password),
    admin: r.admin === "yes" ? "yes" : "no",
    dev: r.dev === "yes" ? "yes" : "no",
    created_at: dbNum(r.created_at),
  };
}

/** Fields a change may set (already validated by the caller). */
export interface UserPatch {
  name?: string;
  game_id?: number;
  game_name?: string;
  game_rks?: number;
  image_url?: string;
  password?: string;
  admin?: "yes" | "no";
  dev?: "yes" | "no";
}

/** Why a write was refused. */
export type Conflict = "name_taken" | "game_taken" | "not_found";

/** The user table. */
export class UserStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Creates a user; a taken name or game account is reported, not thrown. */
  async insert(
    u: { name: string; game_id: number; game_name: string; password: string },
    now: number,
  ): Promise<UserRow | Conflict> {
    return await this.#db.transaction(async (tx) => {
      const clash = await this.#clash(tx, null, u.name, u.game_id);
      if (clash) return clash;
      const [row] = await tx.query(
        `INSERT INTO companion_users (name, game_id, game_name, password, created_at) VALUES ($1, $2, $3, $4, $5)
         RETURNING ${COLUMNS}`,
        [u.name, u.game_id, u.game_name, u.password, now],
      );
      return toRow(row!);
    });
  }

  async #clash(tx: DbQueryable, id: number | null, name?: string, gameId?: number): Promise<Conflict | null> {
    if (name !== undefined) {
      const rows = await tx.query("SELECT id FROM companion_users WHERE lower(name) = lower($1)", [name]);
      if (rows.some((r) => dbNum(r.id) !== id)) return "name_taken";
    }
    if (gameId !== undefined) {
      const rows = await tx.query("SELECT id FROM companion_users WHERE game_id = $1", [gameId]);
      if (rows.some((r) => dbNum(r.id) !== id)) return "game_taken";
    }
    return null;
  }

  /** The user with `id`, or null. */
  async byId(id: number): Promise<UserRow | null> {
    const [row] = await this.#db.query(`SELECT ${COLUMNS} FROM companion_users WHERE id = $1`, [id]);
    return row ? toRow(row) : null;
  }

  /** The user named `name` (ASCII case ignored), or null. */
  async byName(name: string): Promise<UserRow | null> {
    const [row] = await this.#db.query(`SELECT ${COLUMNS} FROM companion_users WHERE lower(name) = lower($1)`, [name]);
    return row ? toRow(row) : null;
  }

  /** Every user by id. */
  async list(): Promise<UserRow[]> {
    return (await this.#db.query(`SELECT ${COLUMNS} FROM companion_users ORDER BY id`)).map(toRow);
  }

  /** Number of users. */
  async count(): Promise<number> {
    const [row] = await this.#db.query("SELECT count(*) AS n FROM companion_users");
    return dbNum(row?.n ?? 0);
  }

  /**
   * Applies `patch` to user `id` in one transaction. A new game account
   * resets rks and avatar (peers §5.1) and schedules a refresh now.
   */
  async update(id: number, patch: UserPatch): Promise<UserRow | Conflict> {
    return await this.#db.transaction(async (tx) => {
      const [current] = await tx.query("SELECT id FROM companion_users WHERE id = $1", [id]);
      if (!current) return "not_found";
      const clash = await this.#clash(tx, id, patch.name, patch.game_id);
      if (clash) return clash;
      const sets: string[] = [];
      const params: (string | number)[] = [];
      const set = (column: string, value: string | number) => {
        params.push(value);
        sets.push(`${column} = $${params.length}`);
      };
      const full: UserPatch = patch.game_id === undefined ? patch : { game_rks: 0, image_url: "", ...patch };
      for (const [k, v] of Object.entries(full)) if (v !== undefined) set(k, v as string | number);
      if (patch.game_id !== undefined) {
        set("next_refresh_at", 0);
        set("refresh_failures", 0);
      }
      if (sets.length > 0) {
        params.push(id);
        await tx.query(`UPDATE companion_users SET ${sets.join(", ")} WHERE id = $${params.length}`, params);
      }
      const [row] = await tx.query(`SELECT ${COLUMNS} FROM companion_users WHERE id = $1`, [id]);
      return toRow(row!);
    });
  }

  /** Users whose profile refresh is due at `now`, soonest first. */
  async dueForRefresh(now: number, limit: number): Promise<{ id: number; game_id: number; failures: number }[]> {
    const rows = await this.#db.query(
      "SELECT id, game_id, refresh_failures FROM companion_users WHERE next_refresh_at <= $1 ORDER BY next_refresh_at, id LIMIT $2",
      [now, limit],
    );
    return rows.map((r) => ({ id: dbNum(r.id), game_id: dbNum(r.game_id), failures: dbNum(r.refresh_failures) }));
  }

  /** Stores a refreshed profile of `game_id` (only if the user still has that game account). */
  async refreshed(
    id: number,
    gameId: number,
    p: { game_name: string; game_rks: number; image_url: string },
    now: number,
    next: number,
  ): Promise<void> {
    await this.#db.query(
      `UPDATE companion_users SET game_name = $1, game_rks = $2, image_url = $3, refreshed_at = $4,
       refresh_failures = 0, next_refresh_at = $5 WHERE id = $6 AND game_id = $7`,
      [p.game_name, p.game_rks, p.image_url, now, next, id, gameId],
    );
  }

  /** Records a failed refresh and when to try again. */
  async refreshFailed(id: number, failures: number, next: number): Promise<void> {
    await this.#db.query("UPDATE companion_users SET refresh_failures = $1, next_refresh_at = $2 WHERE id = $3", [
      failures,
      next,
      id,
    ]);
  }
}
