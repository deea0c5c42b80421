/**
 * PostgreSQL test databases: each test file gets a database of its own
 * (named after the file and a random suffix), so parallel files never
 * collide; it is dropped at the end.
 *
 * @module
 */

import postgres from "postgres";

/** A fresh database name on the server of `base` (the database is not created here). */
export function testDatabaseUrl(base: string, label: string): string {
  const url = new URL(base);
  url.pathname = `/chorus_${label}_${crypto.randomUUID().slice(0, 8)}`;
  return url.href;
}

/** Drops the database of `url`, closing its other connections first. */
export async function dropTestDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = "/postgres";
  const sql = postgres(admin.href, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
