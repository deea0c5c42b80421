import { deepEqual, equal, rejects } from "node:assert/strict";
import { type Db, migrate, openDb, SqliteDb } from "../db/mod.ts";
import { dropTestDatabase, testDatabaseUrl } from "../db/test_db_test_util.ts";
import { ManualClock } from "../util/clock.ts";
import { memoryLogHub } from "../util/log.ts";
import { PROXY_MIGRATIONS, VisitStore } from "./visits.ts";

const PG = Deno.env.get("PM_TEST_DATABASE_URL");
const log = memoryLogHub().logger();

/** A database whose writes fail while `down` is set. */
function flaky(db: Db): Db & { down: boolean } {
  const wrapper = {
    down: false,
    dialect: db.dialect,
    query: db.query.bind(db),
    exec: db.exec.bind(db),
    close: db.close.bind(db),
    transaction<T>(fn: Parameters<Db["transaction"]>[0]): Promise<T> {
      if (wrapper.down) return Promise.reject(new Error("Cannot write: database unreachable"));
      return db.transaction(fn) as Promise<T>;
    },
  };
  return wrapper as Db & { down: boolean };
}

async function visitSuite(t: Deno.TestContext, open: () => Promise<Db>): Promise<void> {
  const db = await open();
  try {
    equal(await migrate(db, "proxy", PROXY_MIGRATIONS), 1);
    const clock = new ManualClock();
    const store = new VisitStore({ db, clock, log, flushIntervalMs: 1000 });
    await t.step(
      "ids are written in the background once a second, deduplicated; monitors' negative ids ignored",
      async () => {
        for (const id of [100, 200, 100, -77, 0, 300]) store.add(id);
        equal(store.pending, 3);
        equal(clock.pending, 1);
        clock.advance(1000);
        await store.flush();
        equal(store.pending, 0);
        const rows = await db.query("SELECT game_id, first_seen FROM proxy_visited_users ORDER BY game_id");
        deepEqual(rows.map((r) => [Number(r.game_id), Number(r.first_seen)]), [
          [100, clock.now()],
          [200, clock.now()],
          [300, clock.now()],
        ]);
      },
    );
    await t.step("count and list write what is pending first; a second visit keeps the first time", async () => {
      const first = clock.now();
      clock.advance(5000);
      store.add(200);
      store.add(400);
      equal(await store.count(), 4);
      deepEqual(await store.list(), [100, 200, 300, 400]);
      const rows = await db.query("SELECT first_seen FROM proxy_visited_users WHERE game_id = $1", [200]);
      equal(Number(rows[0]?.first_seen), first);
    });
    await t.step("more than one batch in one write", async () => {
      for (let id = 1000; id < 2200; id++) store.add(id);
      equal(await store.count(), 4 + 1200);
    });
    await store.stop();
  } finally {
    await db.close();
  }
}

Deno.test("visit store on SQLite", (t) => visitSuite(t, () => Promise.resolve(SqliteDb.open(":memory:"))));

Deno.test({
  name: "visit store on PostgreSQL",
  ignore: !PG,
  async fn(t) {
    const url = testDatabaseUrl(PG!, "proxy_visits");
    try {
      await visitSuite(t, () => openDb({ url, dataDir: "unused", file: "unused" }));
    } finally {
      await dropTestDatabase(url);
    }
  },
});
if (!PG) console.log("visit store on PostgreSQL skipped: PM_TEST_DATABASE_URL is not set");

Deno.test("visit store keeps ids while the database fails and writes them once it is back; bounded", async () => {
  const db = flaky(SqliteDb.open(":memory:"));
  await migrate(db, "proxy", PROXY_MIGRATIONS);
  const clock = new ManualClock();
  const store = new VisitStore({ db, clock, log, maxPending: 3 });
  db.down = true;
  store.add(1);
  store.add(2);
  await rejects(store.count(), /database unreachable/);
  equal(store.pending, 2);
  store.add(3);
  store.add(4);
  equal(store.pending, 3);
  equal(store.dropped, 1);
  db.down = false;
  deepEqual(await store.list(), [2, 3, 4]);
  await store.stop();
  await db.close();
});
