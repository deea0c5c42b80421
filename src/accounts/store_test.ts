import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { type Db, migrate, openDb, SqliteDb } from "../db/mod.ts";
import { dropTestDatabase, testDatabaseUrl } from "../db/test_db_test_util.ts";
import { ApiError, type ErrorCode } from "./errors.ts";
import { InlineHasher, TEST_ARGON2 } from "./passwords.ts";
import { PERM } from "./permissions.ts";
import { ACCOUNTS_MIGRATIONS } from "./schema.ts";
import { seedOnce } from "./seed.ts";
import { AccountStore } from "./store.ts";
import { SessionStore, VisitedStore } from "./store_sessions.ts";
import { SyncSchedule } from "./store_sync.ts";

const PG = Deno.env.get("PM_TEST_DATABASE_URL");
const hasher = new InlineHasher(TEST_ARGON2);

function code(c: ErrorCode) {
  return (e: unknown) => e instanceof ApiError && e.code === c;
}

async function suite(t: Deno.TestContext, db: Db): Promise<void> {
  await migrate(db, "accounts", ACCOUNTS_MIGRATIONS);
  const store = new AccountStore(db);
  const sessions = new SessionStore(db);
  const visited = new VisitedStore(db);
  const schedule = new SyncSchedule(db);
  const now = Date.UTC(2026, 0, 1);

  await t.step("seeding creates the groups and root once, with a generated password", async () => {
    const first = await seedOnce(store, hasher, { rootPassword: undefined, now });
    ok(first.seeded && first.generatedPassword && first.generatedPassword.length >= 20);
    deepEqual((await store.groups()).map((g) => [g.id, g.name, g.permissions]), [
      [1, "root", PERM.ALL],
      [2, "admin", 3],
      [3, "user", 0],
    ]);
    const root = await store.user(1);
    equal(root?.username, "root");
    equal(root?.groupId, 1);
    ok(!root?.passwordHash.includes(first.generatedPassword!), "never stored in clear");
    ok(await hasher.verify(first.generatedPassword!, root!.passwordHash));
    deepEqual(await seedOnce(store, hasher, { rootPassword: "another-password", now }), { seeded: false });
    ok(await hasher.verify(first.generatedPassword!, (await store.user(1))!.passwordHash), "not replaced");
  });

  await t.step("new rows get fresh ids after the explicit seed ids", async () => {
    const g = await store.createGroup("Mods", PERM.USER_MANAGEMENT);
    equal(g.id, 4);
    const u = await store.createUser({
      username: "Alice",
      passwordHash: "x",
      groupId: 3,
      game: { gameId: 100, name: "Alice", rks: 12.5, avatar: null },
      now,
      nextSyncAt: now + 1000,
    });
    equal(u.id, 2);
    equal(u.gameRks, 12.5);
    equal(u.lastSyncTime, now);
  });

  await t.step("names are unique case-insensitively; a game account links once", async () => {
    const base = { passwordHash: "x", groupId: 3, now, nextSyncAt: null };
    await rejects(store.createUser({ ...base, username: "ALICE", game: null }), code("username_taken"));
    await rejects(
      store.createUser({ ...base, username: "Bob", game: { gameId: 100, name: null, rks: null, avatar: null } }),
      code("game_account_bound"),
    );
    await rejects(store.createUser({ ...base, username: "Bob", game: null, groupId: 99 }), code("unknown_group"));
    await rejects(store.createGroup("mods", 0), code("group_name_taken"));
    equal((await store.userByName("alice"))?.id, 2);
    equal((await store.userByGameId(100))?.username, "Alice");
  });

  await t.step("the last root cannot be demoted, deleted, or lose its group's bits", async () => {
    await rejects(store.updateUser(1, { groupId: 3 }), code("last_root"));
    await rejects(store.deleteUser(1), code("last_root"));
    await rejects(store.updateGroup(1, { permissions: PERM.USER_MANAGEMENT }), code("last_root"));
    await rejects(store.deleteGroup(1), code("group_not_empty"));
    equal((await store.user(1))?.groupId, 1, "rolled back");
    equal((await store.group(1))?.permissions, PERM.ALL);
    // With a second root, the first may go.
    await store.updateUser(2, { groupId: 1 });
    await store.updateUser(1, { groupId: 3 });
    await rejects(store.updateUser(2, { groupId: 2 }), code("last_root"));
    await store.updateUser(1, { groupId: 1 });
    await store.updateUser(2, { groupId: 3 });
  });

  await t.step("groups: rename, default group kept, empty groups deleted", async () => {
    equal((await store.updateGroup(4, { name: "Moderators", permissions: 0 })).permissions, 0);
    await rejects(store.deleteGroup(3), code("default_group"));
    await store.deleteGroup(4);
    await rejects(store.deleteGroup(4), code("group_not_found"));
    await rejects(store.updateGroup(4, { name: "x" }), code("group_not_found"));
  });

  await t.step("sessions: found while live, deleted when expired, revoked per user", async () => {
    const s = { userId: 2, createdAt: now, remember: false, ip: "127.0.0.1" };
    await sessions.create({ ...s, digest: "a", expiresAt: now + 100 });
    await sessions.create({ ...s, digest: "b", expiresAt: now + 100 });
    await sessions.create({ ...s, digest: "c", expiresAt: now + 50, remember: true });
    equal((await sessions.find("a", now))?.user.username, "Alice");
    equal((await sessions.find("c", now))?.session.remember, true);
    equal(await sessions.find("c", now + 50), null, "expired");
    equal(await sessions.countFor(2, now), 2);
    equal(await sessions.deleteForUser(2, "a"), 1);
    equal(await sessions.find("b", now), null);
    equal(await sessions.delete("a"), true);
    equal(await sessions.delete("a"), false);
    await sessions.create({ ...s, digest: "d", expiresAt: now + 10 });
    equal(await sessions.purgeExpired(now + 10), 1);
  });

  await t.step("deleting a user deletes their sessions", async () => {
    await sessions.create({ userId: 2, createdAt: now, remember: false, ip: null, digest: "e", expiresAt: now + 99 });
    await store.deleteUser(2);
    equal(await sessions.find("e", now), null);
    await rejects(store.deleteUser(2), code("user_not_found"));
  });

  await t.step("visited game accounts are recorded once", async () => {
    await visited.add([5, 3, 5], now);
    await visited.add([3, 9], now);
    deepEqual(await visited.list(), [3, 5, 9]);
    equal(await visited.count(), 3);
  });

  await t.step("sync schedule: due users, results and failures", async () => {
    const u = await store.createUser({
      username: "Carol",
      passwordHash: "x",
      groupId: 3,
      game: { gameId: 300, name: "Carol", rks: 1, avatar: null },
      now,
      nextSyncAt: now + 10,
    });
    deepEqual(await schedule.dueForSync(now, 10), []);
    deepEqual((await schedule.dueForSync(now + 10, 10)).map((x) => x.id), [u.id]);
    await schedule.recordSync(
      u.id,
      { gameId: 300, name: "Carol2", rks: 2.5, avatar: "https://a/b.png" },
      now + 20,
      now + 99,
    );
    const synced = await store.user(u.id);
    deepEqual([synced?.gameUsername, synced?.gameRks, synced?.gameAvatar, synced?.lastSyncTime], [
      "Carol2",
      2.5,
      "https://a/b.png",
      now + 20,
    ]);
    await schedule.recordSyncFailure(u.id, 3, now + 500);
    equal((await store.user(u.id))?.syncFailures, 3);
  });
}

Deno.test("account store on SQLite", async (t) => {
  const db = SqliteDb.open(":memory:");
  try {
    await suite(t, db);
  } finally {
    await db.close();
  }
});

Deno.test({
  name: "account store on PostgreSQL",
  ignore: !PG,
  async fn(t) {
    const url = testDatabaseUrl(PG!, "accounts_store");
    const db = await openDb({ url, dataDir: "unused", file: "unused" });
    try {
      await suite(t, db);
    } finally {
      await db.close();
      await dropTestDatabase(url);
    }
  },
});
if (!PG) console.log("account store on PostgreSQL skipped: PM_TEST_DATABASE_URL is not set");
