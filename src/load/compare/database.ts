/**
 * A fresh PostgreSQL database for each Chorus-on-PostgreSQL run: the
 * database `chorus_bench` on the server of the given URL is dropped and
 * created again, so that every run starts from empty tables as a new
 * deployment does, and the database named in the URL (often a shared `test`)
 * is never touched.
 *
 * @module
 */

import postgres from "postgres";

/** Name of the scratch database. */
export const BENCH_DATABASE = "chorus_bench";

/** The URL of database `name` on the server of `url` (same user, host, port and parameters). */
export function databaseUrlFor(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Drops and creates {@link BENCH_DATABASE}; resolves with its URL. */
export async function freshDatabase(adminUrl: string): Promise<string> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`);
    await sql.unsafe(`CREATE DATABASE ${BENCH_DATABASE}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
  return databaseUrlFor(adminUrl, BENCH_DATABASE);
}
