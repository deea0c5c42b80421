/**
 * Where a PostgreSQL URL points, for messages: host and database, never the
 * credentials. Apart from the driver (`postgres_db.ts`), so that naming the
 * database does not load postgres.js (issue 15 "Load on demand").
 *
 * @module
 */

/** Where a URL points, without credentials (for messages). */
export function describeUrl(url: string): { host: string; database: string } {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.replace(/^\//, "")) || decodeURIComponent(u.username) || "postgres";
  return { host: u.host || "localhost", database };
}
