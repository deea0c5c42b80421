import { PgliteDb } from "../backends/pglite_db.ts";
import { storeSuite } from "./store_suite_test_util.ts";

storeSuite("PGlite", async () => {
  const db = await PgliteDb.open();
  return { db, close: () => db.close() };
});
