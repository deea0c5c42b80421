/**
 * `room force-move <id> <uid> monitor` from the console and OpenUDS
 * `room.force_move {monitor: true}`: the user lands in the room as a
 * monitor (not a player), their connection closes, and their reconnect
 * receives the room with them among the monitors.
 */
import { deepEqual, equal } from "node:assert/strict";
import { devToken } from "./support/harness.ts";
import { startConsoleHarness } from "./support/console.ts";
import { startUdsHarness } from "./support/uds.ts";
import type { ConsoleHarness } from "./support/console.ts";

async function expectMonitorIn(c: ConsoleHarness, id: string, uid: number): Promise<void> {
  const room = c.h.server.core.rooms.get(id)!;
  deepEqual(room.monitors.map((m) => m.id), [uid]);
  equal(room.players.some((p) => p.id === uid), false, "not a player");
  const back = await c.h.connect();
  const { room: rejoined } = await back.authenticate(devToken(uid));
  equal(rejoined?.id, id);
  // The reconnect's room lists the user flagged as a monitor (UserInfo.monitor).
  equal(rejoined?.users.get(uid)?.monitor, true);
  await back.close();
}

Deno.test("console room force-move <id> <uid> monitor moves the user in as a monitor", async () => {
  const c = await startConsoleHarness();
  try {
    const alice = await c.h.login(100);
    const watcher = await c.h.login(2);
    await alice.createRoom("abc");
    await watcher.createRoom("old");
    deepEqual(await c.lines("room force-move abc 2 monitor"), ["user 2 moved to abc; their client reconnects into it"]);
    await watcher.closed;
    equal(c.h.server.core.rooms.has("old"), false, "the old room emptied and closed");
    await expectMonitorIn(c, "abc", 2);
    const again = await c.run("room force-move abc 2 monitor");
    equal(again.ok, false);
  } finally {
    await c.close();
  }
});

Deno.test("openuds room.force_move {monitor: true} moves the user in as a monitor", async () => {
  const u = await startUdsHarness();
  try {
    const a = await u.client();
    const alice = await u.c.h.login(100);
    const watcher = await u.c.h.login(2);
    await alice.createRoom("abc");
    deepEqual(await a.ok("room.force_move", { room_id: "abc", user_id: 2, monitor: true }), {
      room_id: "abc",
      user_id: 2,
      monitor: true,
    });
    await watcher.closed;
    await expectMonitorIn(u.c, "abc", 2);
    equal((await a.fail("room.force_move", { room_id: "abc", user_id: 2, monitor: "yes" })).code, "INVALID_ARGUMENT");
  } finally {
    await u.close();
  }
});
