import assert from "node:assert/strict";
import { SqliteStoreDb } from "../backends/sqlite_store_db.ts";
import { openThreadedStore } from "../backends/sqlite_thread_test_util.ts";
import { storeSuite } from "./store_suite_test_util.ts";

storeSuite("SQLite", () => {
  const db = SqliteStoreDb.open(":memory:");
  return Promise.resolve({ db, close: () => db.close() });
});

// The same suite with every apply batch on the store's thread (the store of a busy server).
storeSuite("SQLite with its thread", async () => {
  const store = await openThreadedStore();
  return {
    db: store.db,
    close: async () => {
      await store.dispose();
      const ran = store.runs.filter((r) => r === "ran").length;
      assert.ok(ran >= 20, `batches committed on the thread: ${ran} of ${store.runs.join(", ")}`);
    },
  };
});
