/**
 * The monitor protocol extensions (protocol.md §3.5; issue 4): room monitor
 * key handshake, QueryRoomInfo, pushed RoomEvents, UserVisit, console and
 * game-monitor sessions.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import { roomMonitorKey } from "../src/net/mod.ts";
import { expectLog, mark, waitUntil } from "./support/describe.ts";
import { devToken, startHarness } from "./support/harness.ts";

const SECRET = "dev_secret_local";

Deno.test("room monitor: key handshake, one at a time, QueryRoomInfo, RoomEvents and UserVisit", async () => {
  const h = await startHarness({ config: { service_secret_key: SECRET } });
  const key = await roomMonitorKey(SECRET);
  const wrong = await h.connect();
  await assertRejectsWithReason(wrong.roomMonitorAuthenticate(new Uint8Array(64)), "secret key mismatch");
  const rm = await h.connect();
  const { user } = await rm.roomMonitorAuthenticate(key);
  deepEqual(user, { id: -1, name: "$server_room_monitor", monitor: false });
  const second = await h.connect();
  await assertRejectsWithReason(second.roomMonitorAuthenticate(key), "more than one room monitor");
  await assertRejectsWithReason(rm.createRoom("x"), "invalid command for this session");

  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await alice.createRoom("-hidden").catch(() => {});
  await bob.joinRoom("abc");
  await alice.lockRoom(true);
  await alice.selectChart(1);
  await alice.requestStart();
  await bob.ready();
  await alice.played(100001);
  await bob.played(200001);
  await bob.leaveRoom();
  await expectLog(rm, [
    "Authenticate(Ok)",
    "CreateRoom(Err:invalid command for this session)",
    "UserVisit(100)",
    "UserVisit(200)",
    "RoomEvent.CreateRoom",
    "RoomEvent.JoinRoom",
    "RoomEvent.UpdateRoom",
    "RoomEvent.UpdateRoom",
    "RoomEvent.UpdateRoom",
    "RoomEvent.UpdateRoom",
    "RoomEvent.NewRound",
    "RoomEvent.UpdateRoom",
    "RoomEvent.LeaveRoom",
  ]);
  const updates = rm.received.flatMap((c) =>
    c.type === "RoomEvent" && c.event.type === "UpdateRoom" ? [c.event.data] : []
  );
  deepEqual(updates.map((d) => Object.entries(d).filter(([, v]) => v !== null)), [
    [["lock", true]],
    [["chart", 1]],
    [["state", "WaitingForReady"]],
    [["state", "Playing"]],
    [["state", "SelectingChart"]],
  ]);
  const info = await rm.queryRoomInfo();
  deepEqual([...info.rooms.keys()], ["abc"], "hidden rooms are not reported");
  deepEqual(info.rooms.get("abc")?.rounds[0]?.records.map((r) => r.player), [100, 200]);
  deepEqual([...info.users], [[100, "abc"]]);
  const refused = await alice.request({ type: "QueryRoomInfo" });
  deepEqual(refused, { type: "RoomResponse", result: { ok: false, error: "invalid command for this session" } });
  await h.close();
});

Deno.test("without a configured secret no room monitor is accepted", async () => {
  const h = await startHarness();
  const rm = await h.connect();
  await assertRejectsWithReason(rm.roomMonitorAuthenticate(await roomMonitorKey("anything")), "secret key mismatch");
  await h.close();
});

Deno.test("game monitors get a negative id, a marked name, and may only join as monitors with permission", async () => {
  const h = await startHarness({ config: { monitors: [9] } });
  const alice = await h.login(100);
  await alice.createRoom("abc");
  const gm = await h.connect();
  const { user } = await gm.gameMonitorAuthenticate(devToken(9));
  deepEqual(user, { id: -9, name: "Player9 (monitor)", monitor: false });
  await assertRejectsWithReason(gm.joinRoom("abc", false), "monitor = false, but you are in game monitor session");
  const joined = await gm.joinRoom("abc", true);
  equal(joined.live, true);
  const stranger = await h.connect();
  await stranger.gameMonitorAuthenticate(devToken(300));
  await assertRejectsWithReason(stranger.joinRoom("abc", true), "Permission denied. You can't monitor this room.");
  const a = mark(alice);
  alice.touches([{ time: 1, points: [] }]);
  await waitUntil(() => gm.received.some((c) => c.type === "Touches"));
  await expectLog(alice, [], a);
  await h.close();
});

Deno.test("console sessions authenticate but cannot use rooms", async () => {
  const h = await startHarness();
  const console = await h.connect();
  const { user, room } = await console.consoleAuthenticate(devToken(100));
  equal(user.id, 100);
  equal(room, null);
  await assertRejectsWithReason(console.createRoom("x"), "invalid command for this session");
  ok(console.isClosed === false);
  await h.close();
});

Deno.test("UserVisit: the room monitor hears every game-client login, game monitors with their negative id", async () => {
  const h = await startHarness({ config: { service_secret_key: SECRET } });
  const kira = h.dev.state.addUser({ id: 77, name: "Kira ✦" });
  // Logged in before the room monitor connected: never reported afterwards.
  const early = await h.login(50);
  const rm = await h.connect();
  await rm.roomMonitorAuthenticate(await roomMonitorKey(SECRET));
  const r = mark(rm);

  const alice = await h.login(100);
  const player = await h.connect();
  const asPlayer = await player.authenticate(kira);
  deepEqual(asPlayer.user, { id: 77, name: "Kira ✦", monitor: false });
  // extended.md §5.2: game-monitor logins are reported too, with the session's negative id;
  // protocol.md §3.5: that session is named after the account with " (monitor)".
  const gm = await h.connect();
  const asMonitor = await gm.gameMonitorAuthenticate(kira);
  deepEqual(asMonitor.user, { id: -77, name: "Kira ✦ (monitor)", monitor: false });
  // Not game-client logins (protocol.md §3.5 "every successful game-client login"): a console
  // session, a refused token, a repeated Authenticate on a logged-in session.
  const console = await h.connect();
  await console.consoleAuthenticate(devToken(200));
  const bad = await h.connect();
  await assertRejectsWithReason(bad.authenticate("not-a-valid-token"), "failed to fetch info");
  await assertRejectsWithReason(alice.authenticate(devToken(100)), "repeated authenticate");
  // Each login counts, a reconnect of the same account included.
  const again = await h.login(100);
  equal(again.isClosed, false);

  await expectLog(rm, ["UserVisit(100)", "UserVisit(77)", "UserVisit(-77)", "UserVisit(100)"], r);
  deepEqual(rm.received.slice(r), [
    { type: "UserVisit", user: 100 },
    { type: "UserVisit", user: 77 },
    { type: "UserVisit", user: -77 },
    { type: "UserVisit", user: 100 },
  ]);
  // The players themselves never see UserVisit.
  for (const c of [early, alice, player, gm, console, again]) {
    deepEqual(c.received.filter((m) => m.type === "UserVisit"), []);
  }
  await h.close();
});

Deno.test("UserVisit goes to the room monitor only: a second key holder is refused and hears nothing", async () => {
  const h = await startHarness({ config: { service_secret_key: SECRET } });
  const key = await roomMonitorKey(SECRET);
  const rm = await h.connect();
  await rm.roomMonitorAuthenticate(key);
  const second = await h.connect();
  await assertRejectsWithReason(second.roomMonitorAuthenticate(key), "more than one room monitor");
  await h.login(100);
  await expectLog(rm, ["Authenticate(Ok)", "UserVisit(100)"]);
  deepEqual(second.received.filter((m) => m.type === "UserVisit"), []);
  // Once the room monitor is gone, logins are not queued for a later one.
  await rm.close();
  await waitUntil(() => !h.server.roomMonitor.session, "room monitor closed");
  await h.login(200);
  const next = await h.connect();
  await next.roomMonitorAuthenticate(key);
  await h.login(300);
  await expectLog(next, ["Authenticate(Ok)", "UserVisit(300)"]);
  await h.close();
});
