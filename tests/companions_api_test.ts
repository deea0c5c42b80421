/**
 * The companion statistics poller (spec 2 §4.4 `api`) against a live game
 * server: the harness's HTTP API on loopback, scripted clients creating,
 * joining and playing rooms, the poller's records read back from its
 * database.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { startHttpHarness } from "./support/http.ts";
import { type Db, SqliteDb } from "../src/db/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { memoryLogHub } from "../src/util/log.ts";
import { StatsPoller } from "../src/companions/stats_poller.ts";
import { migrateStats, StatsStore } from "../src/companions/stats_store.ts";

const T0 = 1_750_000_000_000;

async function rig(url: string, fetchFn?: typeof fetch) {
  const db = SqliteDb.open(":memory:");
  await migrateStats(db);
  const clock = new ManualClock(T0);
  const hub = memoryLogHub();
  const poller = new StatsPoller({
    url,
    intervalMs: 1000,
    timeoutMs: 2000,
    sampleIntervalSecs: 60,
    retentionDays: 90,
    store: new StatsStore(db),
    clock,
    log: hub.logger(),
    ...(fetchFn ? { fetch: fetchFn } : {}),
  });
  return { db, clock, poller, hub };
}

async function rows(db: Db, sql: string): Promise<unknown[][]> {
  return (await db.query(sql)).map((r) => Object.values(r).map((v) => typeof v === "bigint" ? Number(v) : v));
}

async function users(poller: StatsPoller): Promise<unknown> {
  return await (await poller.app.request("/users")).json();
}

Deno.test("stats poller records rooms, visits, a round and play time from a live game server", async () => {
  const h = await startHttpHarness({ listen: true });
  const { db, clock, poller } = await rig(`${h.url}/api/rooms/info`);
  try {
    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("stage");
    await bob.joinRoom("stage");
    await poller.pollOnce();
    deepEqual(await users(poller), { total_online_users: 2 });
    deepEqual(await rows(db, "SELECT room_name, host_id, created_at, dissolved_at FROM companion_stat_rooms"), [
      ["stage", 100, T0, null],
    ]);
    deepEqual(await rows(db, "SELECT user_id, enter_time, leave_time FROM companion_stat_activity ORDER BY user_id"), [
      [100, T0, null],
      [200, T0, null],
    ]);

    await alice.selectChart(7);
    await alice.requestStart();
    await bob.ready();
    clock.advance(1000);
    await poller.pollOnce(); // PLAYING: the round starts
    clock.advance(1000);
    await poller.pollOnce();
    await alice.played(100001); // Alice done; Bob still playing
    clock.advance(1000);
    await poller.pollOnce();
    await bob.played(200001);
    clock.advance(1000);
    await poller.pollOnce(); // back to chart selection: the round ends
    deepEqual(await rows(db, "SELECT chart_id, start_time, end_time FROM companion_stat_rounds"), [
      [7, T0 + 1000, T0 + 4000],
    ]);
    deepEqual(await rows(db, "SELECT user_id, play_duration FROM companion_stat_playtime ORDER BY user_id"), [
      [100, 1000],
      [200, 2000],
    ]);

    await bob.leaveRoom();
    clock.advance(5000);
    await poller.pollOnce();
    deepEqual(await users(poller), { total_online_users: 1 });
    deepEqual(await rows(db, "SELECT user_id, total_duration, visit_count FROM companion_stat_duration"), [
      [200, 9000, 1],
    ]);

    await alice.leaveRoom(); // the room is deleted with its last player
    clock.advance(1000);
    await poller.pollOnce();
    deepEqual(await rows(db, "SELECT dissolved_at FROM companion_stat_rooms"), [[T0 + 10_000]]);
    deepEqual(await rows(db, "SELECT user_id, total_duration FROM companion_stat_duration ORDER BY user_id"), [
      [100, 10_000],
      [200, 9000],
    ]);
    deepEqual(await rows(db, "SELECT count(*) FROM companion_stat_activity WHERE leave_time IS NULL"), [[0]]);
    deepEqual(await rows(db, "SELECT at, users, rooms FROM companion_stat_online"), [[T0, 2, 1]]);
  } finally {
    await poller.stop();
    await db.close();
    await h.close();
  }
});

Deno.test("stats poller reads the profile S list too and survives the server going down", async () => {
  const h = await startHttpHarness({ listen: true });
  const { db, poller, hub } = await rig(`${h.url}/api/rooms`);
  try {
    const alice = await h.login(100);
    await alice.createRoom("s-shape");
    await poller.pollOnce();
    deepEqual(await users(poller), { total_online_users: 1 });
    await h.close();
    await poller.pollOnce();
    await poller.pollOnce();
    deepEqual(await users(poller), { total_online_users: 1 }, "the last state is kept");
    deepEqual(await rows(db, "SELECT dissolved_at FROM companion_stat_rooms"), [[null]]);
    const status = await (await poller.app.request("/status")).json() as { ok: boolean; last_error: string };
    equal(status.ok, false);
    ok(status.last_error.length > 0);
    equal(hub.history().filter((r) => r.msg.startsWith("room API not answering")).length, 1, "logged once");
  } finally {
    await poller.stop();
    await db.close();
  }
});
