import { LogHub } from "../../util/log.ts";
import { PostgresDb } from "../backends/postgres_db.ts";
import { storeSuite } from "./store_suite_test_util.ts";
import { dropTestDatabase, testDatabaseUrl } from "../../db/test_db_test_util.ts";

const base = Deno.env.get("PM_TEST_DATABASE_URL");

storeSuite(
  "PostgreSQL",
  base
    ? async () => {
      // A database of its own, created by the backend because it is missing.
      const url = testDatabaseUrl(base, "store");
      const db = await PostgresDb.open(url, new LogHub({ level: "debug", sink: () => {} }).logger());
      return {
        db,
        close: async () => {
          await db.close();
          await dropTestDatabase(url);
        },
      };
    }
    : null,
  "PM_TEST_DATABASE_URL unset",
);
