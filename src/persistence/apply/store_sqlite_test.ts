import { SqliteStoreDb } from "../backends/sqlite_store_db.ts";
import { storeSuite } from "./store_suite_test_util.ts";

storeSuite("SQLite", () => {
  const db = SqliteStoreDb.open(":memory:");
  return Promise.resolve({ db, close: () => db.close() });
});
