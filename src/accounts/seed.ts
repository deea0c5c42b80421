/**
 * Initial data (spec 2 §2.1), created once per database: groups root (1,
 * ALL), admin (2, IMPORTANT | USER_MANAGEMENT), user (3, NONE) and the user
 * `root` (id 1, group root). The original seeded a well-known default
 * password; here the root password comes from `ACCOUNTS_ROOT_PASSWORD` or is
 * generated, handed back once to be printed, and only its hash is stored.
 *
 * @module
 */

import { dbNum } from "../db/mod.ts";
import { generatePassword, type PasswordHasher, passwordProblem } from "./passwords.ts";
import { SEED_GROUPS } from "./permissions.ts";
import { nameKey } from "./schema.ts";
import type { AccountStore } from "./store.ts";

/** Environment variable with the root password used at first start. */
export const ROOT_PASSWORD_ENV = "ACCOUNTS_ROOT_PASSWORD";

/** What {@link seedOnce} did. */
export type SeedOutcome =
  | { readonly seeded: false }
  | { readonly seeded: true; readonly generatedPassword: string | null };

/** Seeds an empty database; a seeded one is left alone. Throws for an unacceptable `rootPassword`. */
export async function seedOnce(
  store: AccountStore,
  hasher: PasswordHasher,
  o: { readonly rootPassword: string | undefined; readonly now: number },
): Promise<SeedOutcome> {
  if (await store.meta("seeded") !== null) return { seeded: false };
  const given = o.rootPassword !== undefined && o.rootPassword !== "" ? o.rootPassword : null;
  if (given !== null) {
    const problem = passwordProblem(given);
    if (problem) throw new Error(`Cannot create the root account: ${ROOT_PASSWORD_ENV}: ${problem}`);
  }
  const password = given ?? generatePassword();
  const hash = await hasher.hash(password);
  const db = store.db;
  const done = await db.transaction(async (tx) => {
    // Another process may have seeded meanwhile (shared PostgreSQL).
    const [mark] = await tx.query("SELECT value FROM accounts_meta WHERE key = 'seeded'");
    if (mark) return false;
    for (const g of SEED_GROUPS) {
      await tx.query("INSERT INTO accounts_groups (id, name, name_key, permissions) VALUES ($1, $2, $3, $4)", [
        g.id,
        g.name,
        nameKey(g.name),
        g.permissions,
      ]);
    }
    await tx.query(
      `INSERT INTO accounts_users (id, group_id, username, username_key, password_hash, register_time)
       VALUES (1, 1, 'root', 'root', $1, $2)`,
      [hash, o.now],
    );
    if (db.dialect === "postgres") {
      // Explicit ids do not advance identity sequences; the next created row must not collide.
      for (const table of ["accounts_groups", "accounts_users"]) {
        const [max] = await tx.query(`SELECT max(id) AS m FROM ${table}`);
        await tx.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), $1)`, [dbNum(max?.m)]);
      }
    }
    await tx.query("INSERT INTO accounts_meta (key, value) VALUES ('seeded', $1)", [String(o.now)]);
    return true;
  });
  if (!done) return { seeded: false };
  return { seeded: true, generatedPassword: given === null ? password : null };
}
