/**
 * Connection handling over real TCP with an injected clock: dangling and
 * reconnect, heartbeat loss, duplicate logins, slow and silent clients,
 * malformed input, limits and shutdown (issue 3 "Sessions", "Lifecycle").
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import { encodeClientCommand, type TouchFrame } from "../src/protocol/mod.ts";
import { expectLog, log, mark, waitUntil } from "./support/describe.ts";
import { devToken, settle, startHarness, UNLIMITED_TELEMETRY } from "./support/harness.ts";

async function readAll(conn: Deno.TcpConn): Promise<number[]> {
  const out: number[] = [];
  const buf = new Uint8Array(1024);
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) return out;
    out.push(...buf.subarray(0, n));
  }
}

// Bystanders in these tests send nothing for a while: a long heartbeat keeps
// them connected so only the grace timers are under test.
const QUIET = { heartbeat_timeout: 3600 };

Deno.test("a lost player dangles for dangle_grace and keeps the room when they log in again", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await alice.selectChart(7);
  const a = mark(alice);
  await bob.close();
  await waitUntil(() => h.server.core.users.get(200)?.session === null, "bob dangling");
  await h.advance(9_000);
  equal(h.server.core.rooms.get("abc")?.players.length, 2, "still in the room within the grace");
  const back = await h.connect();
  const { room } = await back.authenticate(devToken(200));
  ok(room);
  equal(room.id, "abc");
  deepEqual(room.state, { type: "SelectChart", chart: 7 });
  deepEqual([...room.users.keys()], [100, 200]);
  equal(room.is_host, false);
  await h.advance(10_000);
  await back.chat("back");
  await expectLog(alice, ["Message.Chat{user:200,content:back}"], a);
  await h.close();
});

Deno.test("a dangling player who does not return leaves the room after the grace", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  const b = mark(bob);
  await alice.close();
  await waitUntil(() => h.server.core.users.get(100)?.session === null, "alice dangling");
  await h.advance(9_999);
  equal(bob.received.length, b);
  await h.advance(1);
  await expectLog(bob, ["Message.LeaveRoom{user:100,name:Alice}", "Message.NewHost{user:200}", "ChangeHost(true)"], b);
  equal(h.server.core.users.has(100), false);
  await h.close();
});

Deno.test("in a Playing room the grace is playing_reconnect_grace", async () => {
  const h = await startHarness({ config: { ...QUIET, dangle_grace: 10, playing_reconnect_grace: 15 } });
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  await bob.ready();
  await waitUntil(() => bob.roomState?.state.type === "Playing");
  const b = mark(bob);
  await alice.close();
  await waitUntil(() => h.server.core.users.get(100)?.session === null, "alice dangling");
  await h.advance(14_999);
  equal(bob.received.length, b);
  await h.advance(1);
  await expectLog(bob, [
    "Message.LeaveRoom{user:100,name:Alice}",
    "Message.NewHost{user:200}",
    "ChangeHost(true)",
  ], b);
  await h.close();
});

Deno.test("silence for heartbeat_timeout loses the connection; Pings keep it alive", async () => {
  const h = await startHarness({ config: { heartbeat_timeout: 15 } });
  const alice = await h.login(100);
  const pinger = await h.login(200);
  await alice.createRoom("abc");
  await h.advance(10_000);
  await pinger.ping();
  await h.advance(10_000);
  await alice.closed;
  equal(alice.closeReason?.code, "eof");
  equal(pinger.isClosed, false);
  equal(h.server.core.users.get(100)?.session, null, "alice dangles");
  await h.close();
});

Deno.test("reconnect while the old connection is alive: the new one takes over, the old one closes", async () => {
  const h = await startHarness();
  const old = await h.login(100);
  const bob = await h.login(200);
  await old.createRoom("abc");
  await bob.joinRoom("abc");
  const fresh = await h.connect();
  const { room } = await fresh.authenticate(devToken(100));
  equal(room?.id, "abc");
  await old.closed;
  const f = mark(fresh);
  await bob.chat("to the new one");
  await expectLog(fresh, ["Message.Chat{user:200,content:to the new one}"], f);
  equal(h.server.core.rooms.get("abc")?.players.length, 2);
  await h.close();
});

Deno.test("a reconnect into a running round repeats the chart before anything else", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200);
  const carol = await h.login(300);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await carol.joinRoom("abc");
  await alice.selectChart(42);
  await alice.requestStart();
  await bob.close();
  const back = await h.connect();
  const { room } = await back.authenticate(devToken(200));
  deepEqual(room?.state, { type: "WaitingForReady" });
  await expectLog(back, ["Authenticate(Ok)", "Message.SelectChart{user:100,name:The Answer,id:42}"]);
  await back.ready();
  await h.close();
});

Deno.test("a silent connection delays nobody's login and is closed after auth_timeout", async () => {
  const h = await startHarness({ config: { auth_timeout: 15 } });
  const silent = await h.raw();
  await silent.write(new Uint8Array([1]));
  const alice = await h.login(100);
  equal(alice.me?.id, 100);
  await h.advance(15_000);
  deepEqual(await readAll(silent), [], "nothing is sent, the connection just closes");
  await h.close();
});

Deno.test("a malformed frame closes that connection and nobody else notices", async () => {
  const h = await startHarness();
  const bob = await h.login(200);
  const bad = await h.raw();
  // Version byte, then a CreateRoom with an invalid room id (space).
  await bad.write(new Uint8Array([1, 0x05, 0x05, 0x03, 0x61, 0x20, 0x63]));
  deepEqual(await readAll(bad), []);
  const oversized = await h.raw();
  await oversized.write(new Uint8Array([1, 0xff, 0xff, 0xff, 0x7f]));
  deepEqual(await readAll(oversized), []);
  const version = await h.raw();
  await version.write(new Uint8Array([2, ...encodeClientCommand({ type: "Ping" })]));
  deepEqual(await readAll(version), [], "only protocol version 1 is spoken");
  await bob.ping();
  equal(h.server.core.counters.values.malformed_frames, 2);
  await h.close();
});

Deno.test("a client that stops reading is disconnected when its queue is full; the room goes on", async () => {
  // Frames far beyond a player's telemetry budget fill the queue fastest: the budget is not what is tested here.
  const h = await startHarness({ telemetryBudget: UNLIMITED_TELEMETRY });
  const alice = await h.login(100);
  const mon = await h.raw();
  // The monitor logs in and joins by hand, then never reads again.
  await mon.write(new Uint8Array([1, ...encodeClientCommand({ type: "Authenticate", token: devToken(9) })]));
  await alice.createRoom("abc");
  await mon.write(encodeClientCommand({ type: "JoinRoom", id: "abc", monitor: true }));
  await waitUntil(() => h.server.core.rooms.get("abc")?.monitors.length === 1, "monitor joined");
  // About 600 KB per Touches frame; the kernel buffers take some MB first.
  const points: TouchFrame["points"] = Array.from({ length: 120_000 }, (_, i) => [i % 10, { x: 0.5, y: 0.5 }]);
  const frames: TouchFrame[] = [{ time: 1, points }];
  for (let i = 0; i < 40 && h.server.core.rooms.get("abc")?.monitors.length; i++) {
    alice.touches(frames);
    await alice.ping();
  }
  await waitUntil(
    () => h.server.core.counters.values.slow_client_disconnects === 1,
    "slow client disconnected",
    10_000,
  );
  await alice.chat("still here");
  equal(h.server.core.users.get(9)?.session ?? null, null);
  await h.close();
});

Deno.test("past max_sessions logins are answered `Server is full`", async () => {
  const h = await startHarness({ config: { max_sessions: 2 } });
  await h.login(100);
  await h.login(200);
  const third = await h.connect();
  await assertRejectsWithReason(third.authenticate(devToken(300)), "Server is full");
  await h.close();
});

Deno.test("past max_pending_auth concurrent logins are answered `server busy`; a slow upstream delays only its own login", async () => {
  const h = await startHarness({ config: { max_pending_auth: 1 } });
  h.dev.state.setFault("me", { delayMs: 1000, times: 1 });
  const slow = await h.connect();
  const slowLogin = slow.authenticate(devToken(100));
  await waitUntil(() => h.server.core.pendingAuth === 1, "first login pending");
  const second = await h.connect();
  await assertRejectsWithReason(second.authenticate(devToken(200)), "Server is busy, please try again later");
  await h.advance(1000);
  const { user } = await slowLogin;
  equal(user.id, 100);
  await h.close();
});

Deno.test("the authentication cache skips the upstream on a second login", async () => {
  const h = await startHarness();
  const first = await h.login(100);
  await first.close();
  await h.login(100);
  const meCalls = h.dev.state.requests.filter((r) => r.endpoint === "me").length;
  equal(meCalls, 1);
  equal(h.server.core.counters.values.auth_cache_hits, 1);
  ok(h.server.core.authCache.entries().every(([hash]) => /^[0-9a-f]{64}$/.test(hash) && !hash.includes("dev.")));
  await h.close();
});

Deno.test("banned ids and addresses get Authenticate(Err(reason)); a ban disconnects an online user", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  const { Admin } = await import("../src/server/mod.ts");
  const admin = new Admin(h.server.core);
  const a = mark(alice);
  admin.banUser(200, "cheating");
  await bob.closed;
  ok(log(bob).includes("Message.Chat{user:0,content:You have been banned from this server. Reason: cheating}"));
  await expectLog(alice, ["Message.LeaveRoom{user:200,name:Bob}"], a);
  const again = await h.connect();
  await assertRejectsWithReason(
    again.authenticate(devToken(200)),
    "You have been banned from this server. Reason: cheating",
  );
  h.server.core.bans.banIp({ ip: "127.0.0.1", reason: "", banned_at: 0 });
  const carol = await h.connect();
  await assertRejectsWithReason(carol.authenticate(devToken(300, "zh-CN")), "你已被本服务器封禁。原因：违反服务器规则");
  await h.close();
});

Deno.test("shutdown tells every player in their language, then closes", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const cn = await h.login(300, "zh-CN");
  await h.server.shutdown();
  await alice.closed;
  await cn.closed;
  ok(log(alice).includes("Message.Chat{user:0,content:The server is shutting down. See you soon!}"));
  ok(log(cn).includes("Message.Chat{user:0,content:服务器正在关闭，稍后见！}"));
  const late = await Deno.connect({ hostname: "127.0.0.1", port: h.port }).catch(() => null);
  equal(late, null, "no longer accepting");
  await settle();
  await h.close();
});
