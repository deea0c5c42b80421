/**
 * Room state machine over real TCP with the injected clock: joining a round
 * in progress (protocol.md §5.5 crash rules, §5.6 monitors), re-resolving the
 * chart duration per round (spec 3 §3.1 rule 5), hiding rooms at run time,
 * tournament mode (spec 3 §2.1), late joiners in the ranking, degraded rooms,
 * per-room capacity and progress notices with a known duration.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import type { DomainEvent } from "../src/events/mod.ts";
import { hubEvent } from "../src/http/mod.ts";
import type { ChartMeta } from "../src/server/context.ts";
import { Admin } from "../src/server/mod.ts";
import { roomMonitorKey } from "../src/net/mod.ts";
import { expectLog, log, mark, waitUntil } from "./support/describe.ts";
import { startHarness } from "./support/harness.ts";

const QUIET = { heartbeat_timeout: 86_400 };
const OK = { ok: true, value: null };

Deno.test("a monitor joining a waiting round learns the chart after its reply and counts as ready", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  const bob = await h.login(200);
  const mon = await h.login(9);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  const a = mark(alice);
  const b = mark(bob);
  const joined = await mon.joinRoom("abc", true);
  deepEqual(joined.state, { type: "WaitingForReady" });
  // Its tool's own Ready (if it sends one) is a no-op, not an error.
  await mon.ready();
  await bob.ready();
  await expectLog(mon, [
    "Authenticate(Ok)",
    "OnJoinRoom(9,monitor)",
    "Message.JoinRoom{user:9,name:Player9}",
    "JoinRoom(Ok)",
    // protocol.md §5.5: without the chart the official client panics on what follows.
    "Message.SelectChart{user:100,name:Lucky Seven,id:7}",
    "Ready(Ok)",
    "Message.Ready{user:200}",
    "Message.StartPlaying",
    "ChangeState(Playing)",
  ]);
  // The monitor never sent a counted Ready: the round starts on Bob's, not on the 60 s countdown.
  const players = [
    "OnJoinRoom(9,monitor)",
    "Message.JoinRoom{user:9,name:Player9}",
    "Message.Ready{user:200}",
    "Message.StartPlaying",
    "ChangeState(Playing)",
  ];
  await expectLog(alice, players, a);
  await expectLog(bob, [...players, "Ready(Ok)"], b);
  equal(h.server.core.rooms.get("abc")?.phase.kind, "play");
  await h.close();
});

Deno.test("a monitor joining a running round learns the chart before the round ends", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  const mon = await h.login(9);
  await alice.createRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  const joined = await mon.joinRoom("abc", true);
  deepEqual(joined.state, { type: "Playing" });
  await alice.played(100001);
  await expectLog(mon, [
    "Authenticate(Ok)",
    "OnJoinRoom(9,monitor)",
    "Message.JoinRoom{user:9,name:Player9}",
    "JoinRoom(Ok)",
    "Message.SelectChart{user:100,name:Lucky Seven,id:7}",
    "Message.Played{user:100,score:1000000,accuracy:1,full_combo:true}",
    "Message.Chat{user:0,content:▸ Lucky Seven results}",
    "Message.Chat{user:0,content:#1. Alice  1000000  100.00%  P928 G0 B0 M0  x928  FC}",
    "Message.Chat{user:0,content:Results: 1/1 completed}",
    "Message.GameEnd",
    "ChangeState(SelectChart:7)",
  ]);
  await h.close();
});

Deno.test("a monitor joining while choosing a chart is not made ready: it must send Ready", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  const mon = await h.login(9);
  await alice.createRoom("abc");
  await alice.selectChart(7);
  await mon.joinRoom("abc", true);
  await alice.requestStart();
  equal(h.server.core.rooms.get("abc")?.phase.kind, "wait");
  // A player's second Ready is still an error; only mid-wait monitors are pre-counted.
  await assertRejectsWithReason(alice.ready(), "already ready");
  await h.advance(59_000);
  equal(h.server.core.rooms.get("abc")?.phase.kind, "wait");
  await mon.ready();
  equal(h.server.core.rooms.get("abc")?.phase.kind, "play");
  await h.close();
});

Deno.test("the second round on the same chart gets a re-resolved duration, not the 10000 s fallback", async () => {
  const calls: [number, ChartMeta | undefined][] = [];
  const h = await startHarness({
    config: { ...QUIET, playing_timeout_offset_secs: 60 },
    chartDuration: (id, _upstream, chart) => (calls.push([id, chart]), Promise.resolve(120)),
  });
  const alice = await h.login(100);
  const room = () => h.server.core.rooms.get("abc")!;
  await alice.createRoom("abc");
  await alice.selectChart(7);
  await waitUntil(() => room().chart?.durationSecs === 120, "first resolution");
  await alice.requestStart();
  await alice.played(100001);
  equal(room().phase.kind, "select");
  // Released at settlement, then resolved again without a new selection.
  await waitUntil(() => room().chart?.durationSecs === 120, "re-resolution after settlement");
  const start = h.clock.now();
  await alice.requestStart();
  const phase = room().phase;
  ok(phase.kind === "play");
  equal(phase.deadline - start, (120 + 60) * 1000);
  const a = mark(alice);
  await h.advance(179_999);
  equal(alice.received.length, a);
  await h.advance(1);
  await waitUntil(() => log(alice, a).includes("Message.GameEnd"), "second round settled at its deadline");
  equal(log(alice, a)[0], "Message.Abort{user:100}");
  // The selection handed its chart metadata over (no second /chart/7); the re-resolution had none.
  equal(calls.length, 3);
  deepEqual(calls.map(([id, chart]) => [id, chart?.name]), [[7, "Lucky Seven"], [7, undefined], [7, undefined]]);
  await h.close();
});

Deno.test("a duration resolved after the second round started moves its deadline", async () => {
  let release: (secs: number) => void = () => {};
  let n = 0;
  const h = await startHarness({
    config: QUIET,
    chartDuration: () => ++n === 1 ? Promise.resolve(120) : new Promise((resolve) => (release = resolve)),
  });
  const alice = await h.login(100);
  const bob = await h.login(200);
  const room = () => h.server.core.rooms.get("abc")!;
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await alice.selectChart(7);
  await waitUntil(() => room().chart?.durationSecs === 120, "first resolution");
  await alice.requestStart();
  await bob.ready();
  await alice.played(100001);
  await bob.played(200001);
  const start = h.clock.now();
  await alice.requestStart();
  await bob.ready();
  const before = room().phase;
  ok(before.kind === "play");
  equal(before.deadline - start, (10_000 + 60) * 1000, "the probe is still running: fallback for now");
  release(90);
  await waitUntil(() => room().chart?.durationSecs === 90, "late resolution");
  const after = room().phase;
  ok(after.kind === "play");
  equal(after.deadline - start, (90 + 60) * 1000);
  await h.close();
});

Deno.test("hiding a room looks like its deletion and showing it like its creation, on the bus and the room monitor", async () => {
  const secret = "audit_secret";
  const h = await startHarness({ config: { ...QUIET, service_secret_key: secret } });
  const events: DomainEvent[] = [];
  const stop = h.bus.listen((e) => void events.push(e));
  const rm = await h.connect();
  await rm.roomMonitorAuthenticate(await roomMonitorKey(secret));
  const admin = new Admin(h.server.core);
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  const r = mark(rm);
  const e = events.length;

  deepEqual(admin.roomOps.setFlags("abc", { hidden: true }), OK);
  const deleted = events.slice(e).filter((x) => x.kind.startsWith("room."));
  deepEqual(deleted.map((x) => [x.kind, "hidden" in x && x.hidden]), [["room.deleted", false]]);
  deepEqual(hubEvent(deleted[0]!), { type: "delete_room", data: { room: "abc" } });
  await alice.lockRoom(true);
  deepEqual((await rm.queryRoomInfo()).rooms.size, 0);
  equal(events.slice(e).filter((x) => hubEvent(x) !== null).length, 1, "nothing public while hidden");

  const e2 = events.length;
  deepEqual(admin.roomOps.setFlags("abc", { hidden: false }), OK);
  const created = events.slice(e2);
  equal(created.length, 1);
  const c = created[0]!;
  ok(c.kind === "room.created");
  equal(c.hidden, false);
  equal(c.by, null, "not a new membership of anyone");
  deepEqual(c.data, {
    host: 100,
    users: [100, 200],
    lock: true,
    cycle: false,
    chart: null,
    state: "SelectingChart",
    rounds: [],
  });
  equal(hubEvent(c)?.type, "create_room");

  await expectLog(rm, [
    "RoomEvent.LeaveRoom",
    "RoomEvent.LeaveRoom",
    "RoomResponse(Ok)",
    "RoomEvent.CreateRoom",
  ], r);
  const pushed = rm.received.slice(r).flatMap((x) => x.type === "RoomEvent" ? [x.event] : []);
  deepEqual(pushed, [
    { type: "LeaveRoom", room: "abc", user: 100 },
    { type: "LeaveRoom", room: "abc", user: 200 },
    { type: "CreateRoom", room: "abc", data: c.data },
  ]);
  // Setting the flag to its current value announces nothing.
  const e3 = events.length;
  deepEqual(admin.roomOps.setFlags("abc", { hidden: false }), OK);
  equal(events.length, e3);
  stop();
  await h.close();
});

Deno.test("switching tournament mode off during WaitingForReady restarts the full ready countdown", async () => {
  const h = await startHarness({ config: { ...QUIET, ready_countdown_secs: 60 } });
  const admin = new Admin(h.server.core);
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  deepEqual(admin.roomOps.setFlags("abc", { tournament: true }), OK);
  const phase = () => h.server.core.rooms.get("abc")!.phase;
  const waiting = phase();
  equal(waiting.kind === "wait" && waiting.countdownAt, null);
  await h.advance(120_000);
  equal(phase().kind, "wait", "no countdown in tournament mode");
  const b = mark(bob);
  deepEqual(admin.roomOps.setFlags("abc", { tournament: false }), OK);
  await h.advance(59_999);
  equal(phase().kind, "wait", "the old countdown is long past, yet the round does not start at once");
  equal(bob.received.length, b);
  await h.advance(1);
  await expectLog(bob, ["Message.StartPlaying", "ChangeState(Playing)"], b);
  const p = phase();
  ok(p.kind === "play");
  deepEqual(p.aborted, [200]);
  await h.close();
});

Deno.test("late joiners: a finisher is ranked, one who never finished is not a DNF of the round", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  const bob = await h.login(200);
  const carol = await h.login(300);
  const dave = await h.login(400);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  await bob.ready();
  for (const late of [carol, dave]) {
    await late.joinRoom("abc").catch(() => {});
    await late.joinRoom("abc");
  }
  // A late joiner has nothing to abort; its result is accepted.
  await carol.abort();
  await dave.played(400001);
  equal(h.server.core.rooms.get("abc")?.phase.kind, "play", "late joiners do not end the round");
  const a = mark(alice);
  await alice.played(100002);
  await bob.abort();
  await expectLog(alice, [
    "Message.Played{user:100,score:998081,accuracy:1.00,full_combo:true}",
    "Played(Ok)",
    "Message.Abort{user:200}",
    "Message.Chat{user:0,content:▸ Lucky Seven results}",
    "Message.Chat{user:0,content:#1. Dave  1000000  100.00%  P561 G0 B0 M0  x561  FC}",
    "Message.Chat{user:0,content:#2. Alice  998081  99.79%  P979 G6 B0 M0  x985  FC}",
    "Message.Chat{user:0,content:–. Bob  DNF}",
    "Message.Chat{user:0,content:Results: 2/3 completed}",
    "Message.GameEnd",
    "ChangeState(SelectChart:7)",
  ], a);
  const round = h.server.core.rooms.get("abc")!.rounds.at(-1)!;
  deepEqual(round.aborted, [200]);
  deepEqual(round.records.map((r) => r.player), [400, 100]);
  await h.close();
});

Deno.test("tournament mode: no auto-start, no ranking, no host transfer, no cycle, no late-join prompt, no chat", async () => {
  const h = await startHarness({ config: { ...QUIET, ready_countdown_secs: 60 } });
  const admin = new Admin(h.server.core);
  const alice = await h.login(100);
  const bob = await h.login(200);
  const carol = await h.login(300);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await alice.cycleRoom(true);
  deepEqual(admin.roomOps.setFlags("abc", { tournament: true }), OK);
  const room = () => h.server.core.rooms.get("abc")!;
  // 6. chat refused
  await assertRejectsWithReason(bob.chat("gl hf"), "Chat is disabled on this server");
  await alice.selectChart(7);
  await alice.requestStart();
  // 1. the countdown never starts the round
  await h.advance(600_000);
  equal(room().phase.kind, "wait");
  await bob.ready();
  equal(room().phase.kind, "play");
  // 5. joining during play is refused outright, with no confirmation prompt
  await assertRejectsWithReason(carol.joinRoom("abc"), "Game is ongoing");
  await assertRejectsWithReason(carol.joinRoom("abc"), "Game is ongoing");
  const a = mark(alice);
  const b = mark(bob);
  await alice.played(100001);
  await bob.played(200001);
  // 2. no ranking lines, 4. no cycle rotation (no NewHost / ChangeHost)
  const settled = [
    "Message.Played{user:100,score:1000000,accuracy:1,full_combo:true}",
    "Message.Played{user:200,score:1000000,accuracy:1,full_combo:true}",
    "Message.GameEnd",
    "ChangeState(SelectChart:7)",
  ];
  await expectLog(alice, [settled[0]!, "Played(Ok)", ...settled.slice(1)], a);
  equal(room().hostId, 100);
  // 3. the host leaving hands the role to nobody
  await alice.leaveRoom();
  await expectLog(bob, [...settled, "Played(Ok)", "Message.LeaveRoom{user:100,name:Alice}"], b);
  equal(room().hostId, null);
  await h.close();
});

Deno.test("a degraded room refuses joins until cleared; monitors too", async () => {
  const h = await startHarness({ config: QUIET });
  const admin = new Admin(h.server.core);
  const alice = await h.login(100);
  const bob = await h.login(200);
  const mon = await h.login(9);
  await alice.createRoom("abc");
  deepEqual(admin.roomOps.setFlags("abc", { degraded: true }), OK);
  const a = mark(alice);
  await assertRejectsWithReason(bob.joinRoom("abc"), "This room is temporarily not accepting players");
  await assertRejectsWithReason(mon.joinRoom("abc", true), "This room is temporarily not accepting players");
  await expectLog(alice, [], a);
  deepEqual(admin.roomOps.setFlags("abc", { degraded: false }), OK);
  await bob.joinRoom("abc");
  deepEqual(h.server.core.rooms.get("abc")!.players.map((p) => p.id), [100, 200]);
  await h.close();
});

Deno.test("per-room max_users caps players, not monitors; invalid values are refused", async () => {
  const h = await startHarness({ config: QUIET });
  const admin = new Admin(h.server.core);
  const alice = await h.login(100);
  const bob = await h.login(200);
  const carol = await h.login(300);
  const mon = await h.login(9);
  await alice.createRoom("abc");
  equal(admin.roomOps.setFlags("abc", { maxPlayers: 0 }).ok, false);
  equal(admin.roomOps.setFlags("abc", { maxPlayers: 1.5 }).ok, false);
  deepEqual(admin.roomOps.setFlags("abc", { maxPlayers: 2 }), OK);
  await bob.joinRoom("abc");
  await assertRejectsWithReason(carol.joinRoom("abc"), "Room is full");
  await mon.joinRoom("abc", true);
  await bob.leaveRoom();
  await carol.joinRoom("abc");
  deepEqual(h.server.core.rooms.get("abc")!.players.map((p) => p.id), [100, 300]);
  await h.close();
});

Deno.test("late-join progress notice with a known duration: bar, percent and minutes left, then every 30 s", async () => {
  const h = await startHarness({ config: QUIET, chartDuration: () => Promise.resolve(120) });
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await alice.selectChart(7);
  await waitUntil(() => h.server.core.rooms.get("abc")?.chart?.durationSecs === 120, "duration recorded");
  await alice.requestStart();
  await h.advance(30_000);
  await bob.joinRoom("abc").catch(() => {});
  const b = mark(bob);
  await bob.joinRoom("abc");
  await expectLog(bob, [
    "OnJoinRoom(200)",
    "Message.JoinRoom{user:200,name:Bob}",
    "JoinRoom(Ok)",
    "Message.SelectChart{user:100,name:Lucky Seven,id:7}",
    // 30 of 120 s: 5 of 20 cells, 25 %, 90 s left → 2 min.
    "Message.Chat{user:0,content:Progress: [█████░░░░░░░░░░░░░░░] 25%  2 min left}",
  ], b);
  const b2 = mark(bob);
  await h.advance(29_999);
  equal(bob.received.length, b2);
  await h.advance(1);
  // 60 of 120 s: 10 cells, 50 %, 1 min left.
  await expectLog(bob, ["Message.Chat{user:0,content:Progress: [██████████░░░░░░░░░░] 50%  1 min left}"], b2);
  await h.close();
});
