/**
 * Opens a role's store: PostgreSQL when a URL is given, otherwise an SQLite
 * file in the role's data directory (created when missing).
 *
 * @module
 */

import { join } from "node:path";
import { PostgresRoleDb } from "./postgres.ts";
import { SqliteDb } from "./sqlite.ts";
import { type Db, DbError } from "./types.ts";

/** Where a role keeps its data. */
export interface DbLocation {
  /** `postgres://...` or `postgresql://...`; when set, `dataDir` is not used for the database. */
  readonly url?: string | undefined;
  /** Directory for the embedded database file. */
  readonly dataDir: string;
  /** File name inside `dataDir`, e.g. `accounts.sqlite`. */
  readonly file: string;
}

/** Opens the database described by `where`. */
export async function openDb(where: DbLocation): Promise<Db> {
  if (where.url !== undefined && where.url !== "") {
    if (!/^postgres(ql)?:\/\//.test(where.url)) {
      throw new DbError("Cannot open the database: the URL must start with postgres:// or postgresql://");
    }
    return await PostgresRoleDb.open(where.url);
  }
  try {
    await Deno.mkdir(where.dataDir, { recursive: true });
  } catch (error) {
    throw new DbError(
      `Cannot create the data directory "${where.dataDir}": ${error instanceof Error ? error.message : error}`,
      { cause: error },
    );
  }
  return SqliteDb.open(join(where.dataDir, where.file));
}
