/**
 * Extended room behaviour over real TCP with the injected clock (issue 4):
 * ready countdown, playing deadline, late join with progress notices,
 * operator rooms (empty, persistent, system host), room bans, force-move.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import { Admin, inGameConsole } from "../src/server/mod.ts";
import { expectLog, log, mark, waitUntil } from "./support/describe.ts";
import { devToken, startHarness } from "./support/harness.ts";

const QUIET = { heartbeat_timeout: 86_400 };

Deno.test("the ready countdown starts the round by itself; players not ready are aborted", async () => {
  const h = await startHarness({ config: { ...QUIET, ready_countdown_secs: 60 } });
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  const b = mark(bob);
  await h.advance(59_999);
  equal(bob.received.length, b);
  await h.advance(1);
  await expectLog(bob, ["Message.StartPlaying", "ChangeState(Playing)"], b);
  const phase = h.server.core.rooms.get("abc")!.phase;
  ok(phase.kind === "play");
  deepEqual(phase.aborted, [200]);
  await assertRejectsWithReason(bob.played(200001), "aborted");
  await h.close();
});

Deno.test("the playing deadline aborts everyone unfinished and settles", async () => {
  const h = await startHarness({ config: { ...QUIET, playing_timeout_offset_secs: 60 } });
  const alice = await h.login(100);
  await alice.createRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  const a = mark(alice);
  // Unknown duration (no prober configured): 10000 s fallback + 60 s offset.
  await h.advance(10_059_999);
  equal(alice.received.length, a);
  await h.advance(1);
  await expectLog(alice, [
    "Message.Abort{user:100}",
    "Message.Chat{user:0,content:▸ Lucky Seven results}",
    "Message.Chat{user:0,content:–. Alice  DNF}",
    "Message.Chat{user:0,content:Results: 0/1 completed}",
    "Message.GameEnd",
    "ChangeState(SelectChart:7)",
  ], a);
  await h.close();
});

Deno.test("a probed chart duration sets the deadline: duration + offset, extended by the first finisher", async () => {
  const durations: number[] = [];
  // Stand in for the archive prober: 120 s for every chart.
  const h = await startHarness({ config: QUIET, chartDuration: (id) => (durations.push(id), Promise.resolve(120)) });
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await alice.selectChart(7);
  await waitUntil(() => h.server.core.rooms.get("abc")?.chart?.durationSecs === 120, "duration recorded");
  await alice.requestStart();
  await bob.ready();
  const start = h.clock.now();
  await alice.played(100001);
  const phase = h.server.core.rooms.get("abc")!.phase;
  ok(phase.kind === "play");
  equal(phase.deadline - start, (120 + 60 + 60) * 1000);
  const b = mark(bob);
  await h.advance(240_000);
  await waitUntil(() => log(bob, b).includes("Message.GameEnd"), "settled at the deadline");
  // Resolved at the selection, then again after settlement for the next round (spec 3 §3.1 rule 5).
  await waitUntil(() => durations.length === 2, "re-resolved after settlement");
  deepEqual(durations, [7, 7]);
  await h.close();
});

Deno.test("late join: a prompt first, then joining again joins the running round with progress notices", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  await alice.createRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  const bob = await h.login(200);
  await assertRejectsWithReason(
    bob.joinRoom("abc"),
    "This room is in a game. Join again to confirm and watch the round finish.",
  );
  const joined = await bob.joinRoom("abc");
  deepEqual(joined.state, { type: "Playing" });
  await expectLog(bob, [
    "Authenticate(Ok)",
    "JoinRoom(Err:This room is in a game. Join again to confirm and watch the round finish.)",
    "OnJoinRoom(200)",
    "Message.JoinRoom{user:200,name:Bob}",
    "JoinRoom(Ok)",
    "Message.SelectChart{user:100,name:Lucky Seven,id:7}",
    "Message.Chat{user:0,content:A round is in progress; you will play from the next one.}",
  ]);
  const b = mark(bob);
  await h.advance(30_000);
  await expectLog(bob, ["Message.Chat{user:0,content:A round is in progress; you will play from the next one.}"], b);
  // The late joiner does not hold up the end of the round.
  await alice.played(100001);
  await waitUntil(() => h.server.core.rooms.get("abc")?.phase.kind === "select");
  await h.close();
});

Deno.test("a late-join prompt expires after 30 s", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  await alice.createRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  const bob = await h.login(200);
  await assertRejectsWithReason(
    bob.joinRoom("abc"),
    "This room is in a game. Join again to confirm and watch the round finish.",
  );
  await h.advance(30_001);
  await assertRejectsWithReason(
    bob.joinRoom("abc"),
    "This room is in a game. Join again to confirm and watch the round finish.",
  );
  await h.close();
});

Deno.test("operator rooms: empty and persistent, the first joiner becomes host, the room outlives its players", async () => {
  const h = await startHarness({ config: QUIET });
  const admin = new Admin(h.server.core);
  deepEqual(admin.roomOps.createEmpty("lobby", { persistent: true }), { ok: true, value: null });
  deepEqual(admin.roomOps.createEmpty("lobby").ok, false);
  deepEqual(admin.roomOps.createEmpty("bad id!"), {
    ok: false,
    code: "INVALID_ARGUMENT",
    message: 'invalid room id "bad id!": invalid room id',
  });
  const alice = await h.login(100);
  await alice.joinRoom("lobby");
  await expectLog(alice, [
    "Authenticate(Ok)",
    "OnJoinRoom(100)",
    "Message.JoinRoom{user:100,name:Alice}",
    "JoinRoom(Ok)",
    "Message.NewHost{user:100}",
    "ChangeHost(true)",
  ]);
  equal(alice.isHost, true);
  await alice.leaveRoom();
  ok(h.server.core.rooms.has("lobby"), "persistent room survives");
  equal(h.server.core.rooms.get("lobby")!.hostId, null);
  deepEqual(admin.roomOps.start("lobby"), { ok: false, code: "INVALID_STATE", message: "No chart selected" });
  deepEqual(admin.roomOps.start("nope"), { ok: false, code: "ROOM_NOT_FOUND", message: "room not found: nope" });
  await h.close();
});

Deno.test("operator start, cancel, host and chart changes reach the room like host actions", async () => {
  const h = await startHarness({ config: QUIET });
  const admin = new Admin(h.server.core);
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  const b = mark(bob);
  deepEqual(await admin.roomOps.setChart("abc", 42), { ok: true, value: null });
  deepEqual(admin.roomOps.setHost("abc", 200), { ok: true, value: null });
  deepEqual(admin.roomOps.start("abc"), { ok: true, value: null });
  deepEqual(admin.roomOps.cancel("abc"), { ok: true, value: null });
  deepEqual(admin.roomOps.setFlags("abc", { locked: true, tournament: true }), { ok: true, value: null });
  await expectLog(bob, [
    "Message.SelectChart{user:100,name:The Answer,id:42}",
    "ChangeState(SelectChart:42)",
    "Message.NewHost{user:200}",
    "ChangeHost(true)",
    "Message.GameStart{user:200}",
    "ChangeState(WaitingForReady)",
    "Message.CancelGame{user:200}",
    "ChangeState(SelectChart:42)",
    "Message.LockRoom{lock:true}",
  ], b);
  await assertRejectsWithReason(bob.chat("hi"), "Chat is disabled on this server");
  await h.close();
});

Deno.test("room bans take the user out and keep them out", async () => {
  const h = await startHarness({ config: QUIET });
  const admin = new Admin(h.server.core);
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  deepEqual(admin.roomOps.ban("abc", 200, "spam"), { ok: true, value: null });
  await waitUntil(() => log(bob).includes("Message.LeaveRoom{user:200,name:Bob}"));
  await bob.leaveRoom();
  await assertRejectsWithReason(bob.joinRoom("abc"), "You are banned from this room");
  deepEqual(admin.roomOps.unban("abc", 200), { ok: true, value: null });
  await bob.joinRoom("abc");
  await h.close();
});

Deno.test("force-move moves the membership and the client's reconnect receives the new room", async () => {
  const h = await startHarness({ config: QUIET });
  const admin = new Admin(h.server.core);
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.createRoom("other");
  const a = mark(alice);
  deepEqual(admin.roomOps.forceMove(200, "abc"), { ok: true, value: null });
  await bob.closed;
  await expectLog(alice, ["OnJoinRoom(200)", "Message.JoinRoom{user:200,name:Bob}"], a);
  equal(h.server.core.rooms.has("other"), false);
  const back = await h.connect();
  const { room } = await back.authenticate(devToken(200));
  equal(room?.id, "abc");
  deepEqual([...room!.users.keys()], [100, 200]);
  deepEqual(admin.roomOps.forceMove(999, "abc").ok, false);
  await h.close();
});

Deno.test("in-game console: admins run commands through room names, others create rooms", async () => {
  const h = await startHarness({ config: { ...QUIET, admin_game_ids: [100] } });
  const seen: string[] = [];
  h.server.commands.use(inGameConsole({
    execute: (line, actor) => {
      seen.push(`${actor.userId}:${line}`);
      return Promise.resolve(
        line === "boom" ? Promise.reject(new Error("no such command")) : [`ran ${line}`, "second line"],
      );
    },
  }));
  const admin = await h.login(100);
  await assertRejectsWithReason(admin.createRoom("_room_info_my__room"), "admin CLI command executed");
  await assertRejectsWithReason(admin.createRoom("_broadcast_all_hi--"), "admin CLI command held");
  await assertRejectsWithReason(admin.createRoom("_--_world"), "admin CLI command executed");
  await assertRejectsWithReason(admin.createRoom("_boom"), "admin CLI command executed");
  await assertRejectsWithReason(admin.createRoom("_x--"), "admin CLI command held");
  await assertRejectsWithReason(admin.createRoom("_no_marker"), "admin CLI command rejected");
  deepEqual(seen, ["100:room info my_room", "100:broadcast all hi world", "100:boom"]);
  const lines = admin.received.flatMap((c) =>
    c.type === "Message" && c.message.type === "Chat" ? [c.message.content] : []
  );
  deepEqual(lines.slice(0, 4), [
    "[CLI] > room info my_room",
    "[CLI] ran room info my_room",
    "[CLI] second line",
    "[CLI] held; continue with a command that starts with --",
  ]);
  ok(lines.includes("[CLI] error: no such command"));
  equal(h.server.core.rooms.size, 0, "no room appears");
  const player = await h.login(200);
  await player.createRoom("_room_info");
  ok(h.server.core.rooms.has("_room_info"), "non-administrators get an ordinary room");
  await h.close();
});

Deno.test("runtime switches: room creation and new connections can be turned off", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  h.server.core.switches.roomCreation = false;
  await assertRejectsWithReason(alice.createRoom("x"), "Room creation is disabled on this server");
  h.server.core.switches.connections = false;
  const refused = await h.raw();
  equal(await refused.read(new Uint8Array(4)).catch(() => null), null);
  h.server.core.switches.connections = true;
  h.server.core.switches.roomCreation = true;
  await alice.createRoom("x");
  await h.close();
});

Deno.test("selecting a chart probes its archive's audio: the deadline uses the real duration", async () => {
  const { resolveChartDuration } = await import("../src/chart/mod.ts");
  const { Upstream } = await import("../src/upstream/mod.ts");
  let harness: Awaited<ReturnType<typeof startHarness>> | null = null;
  const h = await startHarness({
    config: QUIET,
    chartDuration: async (id, upstream) =>
      (await resolveChartDuration(upstream as InstanceType<typeof Upstream>, id, { clock: harness!.clock })).audio
        .durationSecs,
  });
  harness = h;
  // Chart 6 is a stored FLAC of 36 s in the development upstream (30 + 6 % 91).
  h.dev.state.addChart({ id: 6, name: "Six", audio: { format: "flac", durationSecs: 36 }, compress: false });
  const alice = await h.login(100);
  await alice.createRoom("abc");
  await alice.selectChart(6);
  await waitUntil(() => h.server.core.rooms.get("abc")?.chart?.durationSecs !== null, "duration probed");
  equal(h.server.core.rooms.get("abc")!.chart!.durationSecs, h.dev.state.archive(6)!.audio.durationSecs);
  await alice.requestStart();
  const phase = h.server.core.rooms.get("abc")!.phase;
  ok(phase.kind === "play");
  equal(phase.deadline - phase.startedAt, (36 + 60) * 1000);
  await h.close();
});
