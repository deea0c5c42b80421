import { equal, rejects } from "node:assert/strict";
import { dbSuite } from "./db_suite_test_util.ts";
import { DbError, openDb, SqliteDb, toSqliteParams } from "./mod.ts";
import { dropTestDatabase, testDatabaseUrl } from "./test_db_test_util.ts";

const PG = Deno.env.get("PM_TEST_DATABASE_URL");

Deno.test("toSqliteParams rewrites $n outside literals and comments", () => {
  equal(toSqliteParams("SELECT $1, '$2', \"$3\", $10 -- $4\n, $2"), "SELECT ?1, '$2', \"$3\", ?10 -- $4\n, ?2");
  equal(toSqliteParams("SELECT 'it''s $1', $1"), "SELECT 'it''s $1', ?1");
});

Deno.test("db suite on SQLite in memory", (t) => dbSuite(t, () => Promise.resolve(SqliteDb.open(":memory:"))));

Deno.test("db suite on an SQLite file, and the file keeps its rows", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "chorus-db-" });
  try {
    await dbSuite(t, () => openDb({ dataDir: `${dir}/nested`, file: "roles.sqlite" }));
    const again = await openDb({ dataDir: `${dir}/nested`, file: "roles.sqlite" });
    const rows = await again.query("SELECT count(*) AS n FROM suite_items");
    await again.close();
    equal(Number(rows[0]?.n) > 0, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "db suite on PostgreSQL (created when missing)",
  ignore: !PG,
  async fn(t) {
    const url = testDatabaseUrl(PG!, "db");
    try {
      await dbSuite(t, () => openDb({ url, dataDir: "unused", file: "unused" }));
    } finally {
      await dropTestDatabase(url);
    }
  },
});
if (!PG) console.log("db suite on PostgreSQL skipped: PM_TEST_DATABASE_URL is not set");

Deno.test("openDb refuses a URL that is not PostgreSQL and a data directory it cannot create", async () => {
  await rejects(openDb({ url: "mysql://x", dataDir: ".", file: "x" }), (e: unknown) => e instanceof DbError);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/file`, "");
    await rejects(
      openDb({ dataDir: `${dir}/file/sub`, file: "x.sqlite" }),
      (e: unknown) => e instanceof DbError && /Cannot create the data directory/.test(e.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
