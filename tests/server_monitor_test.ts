/**
 * Monitors and live mode (protocol.md §5.6) and the crash rules of §5.5 when
 * the server takes someone out of a room.
 */
import { deepEqual, equal } from "node:assert/strict";
import { Admin } from "../src/server/mod.ts";
import { expectLog, mark, waitUntil } from "./support/describe.ts";
import { startHarness } from "./support/harness.ts";

Deno.test("a monitor makes the room live for players who join later", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const mon = await h.login(9);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await mon.joinRoom("abc", true);
  const joined = await bob.joinRoom("abc");
  equal(joined.live, true);
  deepEqual(joined.users.map((u) => [u.id, u.monitor]), [[100, false], [200, false], [9, true]]);
  await h.close();
});

Deno.test("when the last player leaves, a monitor gets nothing more and can still leave cleanly", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const mon = await h.login(9);
  await alice.createRoom("abc");
  await mon.joinRoom("abc", true);
  const m = mark(mon);
  await alice.leaveRoom();
  await expectLog(mon, ["Message.LeaveRoom{user:100,name:Alice}"], m);
  equal(h.server.core.rooms.has("abc"), false);
  await mon.leaveRoom();
  equal(mon.roomState, null);
  await mon.createRoom("next");
  await h.close();
});

Deno.test("a player removed by an operator keeps a working client: LeaveRoom answers Ok", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  const admin = new Admin(h.server.core);
  const b = mark(bob);
  deepEqual(admin.roomOps.kick("abc", 200), { ok: true, value: null });
  await expectLog(bob, [
    "Message.LeaveRoom{user:200,name:Bob}",
    "Message.Chat{user:0,content:You were removed from room abc by an administrator}",
  ], b);
  await alice.lockRoom(true);
  await bob.leaveRoom();
  equal(bob.roomState, null);
  await bob.createRoom("mine");
  await h.close();
});

Deno.test("closing a room lets everyone leave; the room disappears", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200);
  const mon = await h.login(9);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await mon.joinRoom("abc", true);
  const admin = new Admin(h.server.core);
  deepEqual(admin.roomOps.close("abc"), { ok: true, value: null });
  equal(h.server.core.rooms.has("abc"), false);
  for (const c of [alice, bob, mon]) {
    await waitUntil(() =>
      c.received.some((x) => x.type === "Message" && x.message.type === "Chat" && x.message.user === 0)
    );
    await c.leaveRoom();
  }
  await h.close();
});
