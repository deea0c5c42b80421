/**
 * The companion stores (users, statistics, audit) on every backend of the
 * roles' SQL seam: SQLite in memory always, PostgreSQL when
 * `PM_TEST_DATABASE_URL` is set. Same statements, same answers.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { type Db, openDb, SqliteDb } from "../db/mod.ts";
import { dropTestDatabase, testDatabaseUrl } from "../db/test_db_test_util.ts";
import { AuditStore, migrateAudit } from "./audit_store.ts";
import { migrateStats, StatsStore } from "./stats_store.ts";
import { migrateUsers, UserStore } from "./user_store.ts";

const PG = Deno.env.get("PM_TEST_DATABASE_URL");
const T0 = 1_750_000_000_000;

async function suite(t: Deno.TestContext, db: Db): Promise<void> {
  await migrateUsers(db);
  await migrateStats(db);
  await migrateAudit(db);
  await migrateUsers(db); // idempotent

  await t.step("users: unique names regardless of case, one user per game account, patches", async () => {
    const users = new UserStore(db);
    const a = await users.insert({ name: "Alice", game_id: 100, game_name: "A", password: "h1" }, T0);
    ok(typeof a === "object");
    equal(await users.insert({ name: "alice", game_id: 200, game_name: "", password: "h" }, T0), "name_taken");
    equal(await users.insert({ name: "bob", game_id: 100, game_name: "", password: "h" }, T0), "game_taken");
    const b = await users.insert({ name: "bob", game_id: 200, game_name: "B", password: "h2" }, T0);
    ok(typeof b === "object");
    equal(await users.update(b.id, { name: "ALICE" }), "name_taken");
    equal(await users.update(999, { dev: "yes" }), "not_found");
    await users.refreshed(a.id, 100, { game_name: "A2", game_rks: 12.25, image_url: "https://x/a.png" }, T0, T0 + 1);
    const moved = await users.update(a.id, { game_id: 300, admin: "yes" });
    ok(typeof moved === "object");
    deepEqual([moved.game_id, moved.game_rks, moved.image_url, moved.admin, moved.created_at], [300, 0, "", "yes", T0]);
    equal((await users.byName("ALICE"))?.id, a.id);
    equal(await users.count(), 2);
    deepEqual((await users.dueForRefresh(T0, 10)).map((u) => u.game_id), [300, 200]);
  });

  await t.step("statistics: a visit, a round with play time, a crash closed at the last sample", async () => {
    const stats = new StatsStore(db);
    const room = await stats.openRoom("r", 1, T0);
    const v1 = await stats.enter(1, room, T0);
    await stats.leave(v1, 1, room, T0, T0 + 5000);
    const v2 = await stats.enter(1, room, T0 + 6000);
    await stats.leave(v2, 1, room, T0 + 6000, T0 + 8000);
    const [d] = await db.query("SELECT total_duration, visit_count FROM companion_stat_duration");
    deepEqual([Number(d?.total_duration), Number(d?.visit_count)], [7000, 2]);
    const round = await stats.startRound(room, 7, T0);
    await stats.endRound(round, T0 + 3000, new Map([[1, 2500], [2, 3000]]));
    equal(await stats.playtime(1), 2500);
    await stats.enter(2, room, T0 + 9000);
    await stats.sample(T0 + 10_000, 1, 1);
    await stats.sample(T0 + 10_000, 9, 9); // same instant: kept once
    equal(await stats.closeDangling(T0 + 99_000), 1);
    const [open] = await db.query("SELECT count(*) AS n FROM companion_stat_activity WHERE leave_time IS NULL");
    equal(Number(open?.n), 0);
    await stats.prune(T0 + 10_001);
    const [left] = await db.query("SELECT count(*) AS n FROM companion_stat_online");
    equal(Number(left?.n), 0);
  });

  await t.step("audit: entries newest first, long text cut, old ones pruned", async () => {
    const audit = new AuditStore(db);
    const base = { ip: "192.0.2.1", alias: "custom", exitCode: null, durationMs: null, detail: "" } as const;
    await audit.record({ ...base, at: T0, outcome: "refused_auth", command: "x".repeat(5000) });
    await audit.record({ ...base, at: T0 + 1, outcome: "ok", command: "uname", exitCode: 0, durationMs: 3 });
    const [last, first] = await audit.recent();
    deepEqual([last?.outcome, last?.exitCode, last?.durationMs, first?.command?.length], ["ok", 0, 3, 2000]);
    await audit.prune(T0 + 1);
    deepEqual((await audit.recent()).map((e) => e.outcome), ["ok"]);
  });
}

Deno.test("companion stores on SQLite", async (t) => {
  const db = SqliteDb.open(":memory:");
  try {
    await suite(t, db);
  } finally {
    await db.close();
  }
});

Deno.test({
  name: "companion stores on PostgreSQL",
  ignore: !PG,
  async fn(t) {
    const url = testDatabaseUrl(PG!, "companions");
    const db = await openDb({ url, dataDir: "unused", file: "unused" });
    try {
      await suite(t, db);
    } finally {
      await db.close();
      await dropTestDatabase(url);
    }
  },
});
if (!PG) console.log("companion stores on PostgreSQL skipped: PM_TEST_DATABASE_URL is not set");
