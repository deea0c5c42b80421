import { deepEqual, equal } from "node:assert/strict";
import { SqliteDb } from "../db/mod.ts";
import { createDevApi, Upstream } from "../upstream/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { memoryLogHub } from "../util/log.ts";
import { SeededRandom } from "../util/random.ts";
import { ProfileRefresher } from "./profile_refresh.ts";
import { migrateUsers, UserStore } from "./user_store.ts";

const T0 = 1_750_000_000_000;

async function rig() {
  const db = SqliteDb.open(":memory:");
  await migrateUsers(db);
  const store = new UserStore(db);
  const clock = new ManualClock(T0);
  const dev = createDevApi({ clock });
  const upstream = new Upstream({
    baseUrl: "http://dev.invalid",
    fetch: dev.fetch,
    clock,
    random: new SeededRandom(3),
    retry: { maxAttempts: 1 },
  });
  const hub = memoryLogHub();
  const refresher = new ProfileRefresher({
    store,
    upstream,
    clock,
    log: hub.logger(),
    policy: { refresh_interval_secs: 600, refresh_gap_ms: 250, max_backoff_secs: 3600 },
  });
  return { db, store, clock, dev, refresher, hub };
}

Deno.test("profile refresh fills name, avatar and rks, then waits the interval", async () => {
  const r = await rig();
  try {
    r.dev.state.addUser({ id: 100, name: "Alice Upstream" });
    await r.store.insert({ name: "alice", game_id: 100, game_name: "", password: "x" }, T0);
    equal(await r.refresher.step(), 250);
    const [user] = await r.store.list();
    deepEqual([user?.game_name, user?.image_url, user!.game_rks > 0], [
      "Alice Upstream",
      "http://dev.invalid/avatars/100.svg",
      true,
    ]);
    equal(await r.refresher.step(), 60_000, "nothing due: look again in a minute");
    equal((await r.store.dueForRefresh(T0 + 600_000, 10)).length, 1, "due again after the interval");
  } finally {
    await r.db.close();
  }
});

Deno.test("profile refresh backs off per user on a refusal and pauses on an outage", async () => {
  const r = await rig();
  try {
    await r.store.insert({ name: "alice", game_id: 100, game_name: "A", password: "x" }, T0);
    r.dev.state.setFault("user", { status: 404, times: 1 });
    equal(await r.refresher.step(), 250);
    deepEqual(await r.store.dueForRefresh(T0 + 1_199_999, 10), [], "first failure: twice the interval");
    deepEqual((await r.store.dueForRefresh(T0 + 1_200_000, 10)).map((u) => u.failures), [1]);

    r.clock.advance(1_200_000);
    r.dev.state.setFault("user", { status: 503 });
    equal(await r.refresher.step(), 30_000, "an outage pauses the loop");
    equal(await r.refresher.step(), 60_000, "and doubles");
    equal((await r.store.dueForRefresh(r.clock.now(), 10))[0]?.failures, 1, "an outage is not the user's failure");
    r.dev.state.clearFaults();
    equal(await r.refresher.step(), 250);
    equal((await r.store.list())[0]?.game_name, "Alice");
    equal(r.hub.history().filter((l) => l.msg.startsWith("game API unreachable")).length, 2);
  } finally {
    await r.db.close();
  }
});
