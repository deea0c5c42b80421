/**
 * The embedded store's thread starts when play begins, not for logins or
 * settings (issue 15: its ~16 MiB are worth it only while rounds are played).
 */
import assert from "node:assert/strict";
import { defaultConfig } from "../src/config/mod.ts";
import { EventBus } from "../src/events/mod.ts";
import { SqliteStoreDb } from "../src/persistence/backends/mod.ts";
import { openPersistence } from "../src/persistence/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { LogHub } from "../src/util/log.ts";

Deno.test("the embedded store starts its thread at the first round, and writes go on through it", async () => {
  const dataDir = await Deno.makeTempDir();
  const clock = new ManualClock();
  const bus = new EventBus(() => clock.now());
  const p = await openPersistence({
    config: { ...defaultConfig(), data_dir: dataDir },
    clock,
    log: new LogHub({ level: "error", sink: () => {} }).logger(),
    bus,
  });
  try {
    const db = p.store.db;
    assert.ok(db instanceof SqliteStoreDb);
    for (let i = 0; i < 100; i++) p.setSetting(`k${i}`, i);
    await p.flush();
    bus.publish({ kind: "user.online", user: 1, name: "Alice", language: "en-US", ip: null });
    assert.equal(await db.threadRunning(), false, "no thread for settings and logins");
    bus.publish({
      kind: "round.started",
      room: "r",
      uuid: "u",
      hidden: false,
      round: "round-1",
      chart: 7,
      chartName: "Chart",
      players: [1],
    });
    assert.equal(await db.threadRunning(), true, "the first round starts it");
    p.setSetting("after", 1);
    await p.flush();
    assert.deepEqual(await db.query("SELECT value FROM settings WHERE key = 'after'"), [{ value: 1 }]);
  } finally {
    await p.stop(0);
    await Deno.remove(dataDir, { recursive: true });
  }
});
