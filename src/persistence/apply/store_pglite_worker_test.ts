import { PgliteWorkerDb } from "../backends/pglite_worker_db.ts";
import { storeSuite } from "./store_suite_test_util.ts";

storeSuite("PGlite in a worker", async () => {
  const db = await PgliteWorkerDb.open();
  return { db, close: () => db.close() };
});
