import { deepEqual, equal } from "node:assert/strict";
import { migrate, SqliteDb } from "../db/mod.ts";
import { UpstreamError } from "../upstream/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import type { GameDirectory } from "./game_accounts.ts";
import { GameSync } from "./game_sync.ts";
import { ACCOUNTS_MIGRATIONS } from "./schema.ts";
import { AccountStore, type GameProfile } from "./store.ts";
import { SyncSchedule } from "./store_sync.ts";

const log = new LogHub({ level: "error", sink: () => {} }).logger();
const HOUR = 3_600_000;

/** An in-memory game directory with scripted failures. */
class FakeDirectory implements GameDirectory {
  profiles = new Map<number, GameProfile>();
  failures = new Map<number, UpstreamError>();
  calls: number[] = [];
  byId(id: number): Promise<GameProfile | null> {
    this.calls.push(id);
    const failure = this.failures.get(id);
    if (failure) return Promise.reject(failure);
    return Promise.resolve(this.profiles.get(id) ?? null);
  }
  search(): Promise<GameProfile[]> {
    return Promise.resolve([]);
  }
}

function down(): UpstreamError {
  return new UpstreamError({
    kind: "network",
    endpoint: "user",
    url: "http://x/user/1",
    action: "Cannot",
    reason: "down",
  });
}

async function setup() {
  const db = SqliteDb.open(":memory:");
  await migrate(db, "accounts", ACCOUNTS_MIGRATIONS);
  await db.exec(
    "INSERT INTO accounts_groups (id, name, name_key, permissions) VALUES (3, 'user', 'user', 0)",
  );
  const store = new AccountStore(db);
  const clock = new ManualClock();
  const games = new FakeDirectory();
  const ids: number[] = [];
  for (const gameId of [100, 200, 300]) {
    const u = await store.createUser({
      username: `u${gameId}`,
      passwordHash: "x",
      groupId: 3,
      game: { gameId, name: `Old${gameId}`, rks: 1, avatar: null },
      now: clock.now(),
      nextSyncAt: clock.now() + HOUR,
    });
    ids.push(u.id);
  }
  const sync = new GameSync({ schedule: new SyncSchedule(db), games, clock, log });
  return { db, store, clock, games, ids, sync };
}

Deno.test("game sync: due users are refreshed and rescheduled an interval later", async () => {
  const { db, store, clock, games, ids, sync } = await setup();
  try {
    deepEqual(await sync.runOnce(), { synced: 0, failed: 0 }, "nothing due yet");
    clock.advance(HOUR);
    for (const id of [100, 200, 300]) {
      games.profiles.set(id, { gameId: id, name: `New${id}`, rks: 9.5, avatar: "https://a/x.png" });
    }
    deepEqual(await sync.runOnce(), { synced: 3, failed: 0 });
    const u = await store.user(ids[0]!);
    deepEqual([u?.gameUsername, u?.gameRks, u?.gameAvatar, u?.lastSyncTime, u?.nextSyncAt], [
      "New100",
      9.5,
      "https://a/x.png",
      clock.now(),
      clock.now() + HOUR,
    ]);
  } finally {
    await db.close();
  }
});

Deno.test("game sync: failures back off per user; an unreachable API stops the round; a gone account keeps its data", async () => {
  const { db, store, clock, games, ids, sync } = await setup();
  try {
    clock.advance(HOUR);
    games.failures.set(100, down());
    deepEqual(await sync.runOnce(), { synced: 0, failed: 1 });
    deepEqual(games.calls, [100], "the API is down: the others wait for the next round");
    equal((await store.user(ids[0]!))?.syncFailures, 1);
    equal((await store.user(ids[0]!))?.nextSyncAt, clock.now() + 60_000);
    games.failures.clear();
    games.profiles.set(200, { gameId: 200, name: "B", rks: 2, avatar: null });
    deepEqual(await sync.runOnce(), { synced: 1, failed: 1 }, "300 is gone upstream");
    const gone = await store.user(ids[2]!);
    equal(gone?.gameUsername, "Old300");
    equal(gone?.nextSyncAt, clock.now() + 86_400_000);
    equal(sync.backoff(1), 60_000);
    equal(sync.backoff(3), 240_000);
    equal(sync.backoff(30), 86_400_000);
  } finally {
    await db.close();
  }
});

Deno.test("game sync: rounds run on the clock until closed", async () => {
  const { db, clock, games, sync } = await setup();
  try {
    sync.start();
    clock.advance(HOUR - 60_000);
    await new Promise((r) => setTimeout(r, 0));
    equal(games.calls.length, 0, "a round ran, nobody was due");
    for (let i = 0; i < 50 && clock.pending === 0; i++) await new Promise((r) => setTimeout(r, 0));
    clock.advance(60_000);
    for (let i = 0; i < 50 && games.calls.length < 3; i++) await new Promise((r) => setTimeout(r, 0));
    equal(games.calls.length, 3);
    await sync.close();
    equal(clock.pending, 0, "no timer left");
  } finally {
    await db.close();
  }
});
