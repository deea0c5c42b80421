import { deepEqual, equal } from "node:assert/strict";
import { type Db, dbNum, SqliteDb } from "../db/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { memoryLogHub } from "../util/log.ts";
import { normalizeRooms } from "./room_shapes.ts";
import { StatsPoller } from "./stats_poller.ts";
import { migrateStats, StatsStore } from "./stats_store.ts";

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

Deno.test("stats poller reads the flat shape the original read, and refuses a body that is no room list", async () => {
  let body: unknown = [{ name: "flat", host: 5, users: [5, 6], state: "playing", chart: 3 }];
  const fake = (() => Promise.resolve(Response.json(body))) as unknown as typeof fetch;
  const { db, poller } = await rig("http://example.invalid/rooms", fake);
  try {
    await poller.pollOnce();
    deepEqual(await users(poller), { total_online_users: 2 });
    deepEqual(await rows(db, "SELECT chart_id, end_time FROM companion_stat_rounds"), [[3, null]]);
    body = { error: "maintenance" };
    await poller.pollOnce();
    deepEqual(await users(poller), { total_online_users: 2 }, "a bad body is not 'every room went away'");
  } finally {
    await poller.stop();
    await db.close();
  }
});

Deno.test("stats poller closes visits a crash left open at the last sample", async () => {
  const { db, poller } = await rig("http://example.invalid/rooms");
  const store = new StatsStore(db);
  try {
    const room = await store.openRoom("r", 1, T0);
    await store.enter(1, room, T0);
    await store.sample(T0 + 30_000, 1, 1);
    await poller.start();
    await poller.stop();
    deepEqual(await rows(db, "SELECT leave_time FROM companion_stat_activity"), [[T0 + 30_000]]);
    deepEqual(await rows(db, "SELECT total_duration FROM companion_stat_duration"), [[30_000]]);
    equal(dbNum((await db.query("SELECT dissolved_at FROM companion_stat_rooms"))[0]?.dissolved_at), T0 + 30_000);
  } finally {
    await db.close();
  }
});

Deno.test("normalizeRooms reads {name, data}, flat and {rooms} shapes, ids or objects, any state spelling", () => {
  deepEqual(
    normalizeRooms([
      { name: "a", data: { host: 1, users: [1, 2], state: "PLAYING", chart: 9, playing_users: [2] } },
      { name: "b", host: { id: 3 }, users: [{ id: 3, name: "x" }], state: { type: "SelectChart" }, chart: null },
      { name: "a", data: {} },
      "junk",
    ]),
    [
      { name: "a", host: 1, users: [1, 2], state: "playing", chart: 9, playing: [2] },
      { name: "b", host: 3, users: [3], state: "selecting_chart", chart: null, playing: null },
    ],
  );
  deepEqual(
    normalizeRooms({ rooms: [{ name: "c", users: [], state: "WAITING_FOR_READY" }] })?.[0]?.state,
    "waiting_for_ready",
  );
  equal(normalizeRooms({ nope: 1 }), null);
});
