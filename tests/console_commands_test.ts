/**
 * Every console command of spec 3 §4.2 through the one registry, against a
 * live in-process server with real clients (issue 7 "Commands").
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { assertRejectsWithReason, type PhiraClient } from "../src/client/mod.ts";
import type { ApprovalQueue } from "../src/ops/mod.ts";
import { BenchmarkError, type BenchmarkOptions, benchmarkRunner } from "../src/load/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { BASE_FILE, fakePersistence, startConsoleHarness } from "./support/console.ts";

/** System chat lines (user 0) a client received. */
function systemChat(c: PhiraClient): string[] {
  return c.received.flatMap((m) =>
    m.type === "Message" && m.message.type === "Chat" && m.message.user === 0 ? [m.message.content] : []
  );
}

Deno.test("console help lists every command; help <words> narrows; exit and quit request shutdown", async () => {
  const c = await startConsoleHarness();
  const all = await c.lines("help");
  for (const name of ["help", "exit", "check-config", "config reload", "users", "kick", "ban ip", "banlist"]) {
    ok(all.some((l) => l.trimStart().startsWith(name)), `help lists ${name}`);
  }
  ok(all.some((l) => l.includes("(also: quit)")));
  const room = await c.lines("help room");
  ok(room.every((l) => l === "Rooms:" || l.trimStart().startsWith("room ")), room.join("\n"));
  ok(room.some((l) => l.includes("room set <room_id> <field> <value...>")));
  deepEqual(await c.lines("help nothing-like-this"), [
    'no command matches "nothing-like-this"; type help for the list',
  ]);
  deepEqual(await c.lines("exit"), ["stopping the server"]);
  deepEqual(await c.lines("QUIT"), ["stopping the server"]);
  deepEqual(c.shutdowns, ["console: exit", "console: exit"]);
  await c.close();
});

Deno.test("console unknown commands, bad arguments and quotes answer with codes and usage", async () => {
  const c = await startConsoleHarness();
  const unknown = await c.run("frobnicate");
  equal(unknown.ok, false);
  ok(!unknown.ok && unknown.code === "UNKNOWN_COMMAND");
  deepEqual(unknown.lines, ['error: unknown command "frobnicate"; type help for the list']);
  const sub = await c.run("room nope");
  ok(!sub.ok && sub.code === "UNKNOWN_COMMAND" && sub.message.includes("expected one of: create-empty, info"));
  const bad = await c.run("kick alice");
  ok(!bad.ok && bad.code === "INVALID_ARGUMENT");
  deepEqual(bad.lines, [
    'error: invalid user_id "alice": expected an integer user id',
    "usage: kick <user_id> [reason...]",
  ]);
  deepEqual((await c.run("kick")).lines[0], "error: missing <user_id>");
  deepEqual((await c.run("room info abc extra")).lines[0], 'error: unexpected argument "extra"');
  deepEqual((await c.run("room info bad/id")).lines[0], 'error: invalid room id "bad/id": invalid room id');
  deepEqual((await c.run('broadcast all "open')).lines, ['error: Cannot parse command: unterminated " quote']);
  deepEqual(await c.lines("   "), []);
  deepEqual(
    c.registry.inputs.recent(3).map((i) => i.input),
    ["room info abc extra", "room info bad/id", 'broadcast all "open'],
    "blank lines are not recorded",
  );
  await c.close();
});

Deno.test("console users, u, player-count and kick", async () => {
  const c = await startConsoleHarness();
  deepEqual(await c.lines("users"), ["no users online"]);
  const alice = await c.h.login(100);
  await c.h.login(200);
  await alice.createRoom("abc");
  const users = await c.lines("u");
  equal(users[0], "2 online:");
  match(users[1]!, /^ {2}100 Alice {2}room abc {2}en-US {2}127\.0\.0\.1$/);
  match(users[2]!, /^ {2}200 Bob {2}no room/);
  deepEqual(await c.lines("player-count"), ["players online: 2 (2 sessions, 1 rooms)"]);
  deepEqual(await c.lines("kick 100 too loud"), ["kicked user 100"]);
  await alice.closed;
  ok(systemChat(alice).some((l) => l.includes("too loud")));
  const missing = await c.run("kick 100");
  ok(!missing.ok && missing.code === "USER_NOT_FOUND");
  await waitUntil(() => c.h.server.core.sessions.size === 1, "kicked session closed");
  deepEqual(await c.lines("player-count"), ["players online: 1 (1 sessions, 0 rooms)"]);
  await c.close();
});

Deno.test("console ban, unban, pardon, ban ip (address or user id), unban ip, banlist, ip-history", async () => {
  const c = await startConsoleHarness();
  const alice = await c.h.login(100);
  deepEqual(await c.lines("ip-history 100").then((l) => l.map((x) => x.split("  ")[0])), ["127.0.0.1"]);
  match((await c.lines("ip-history 100"))[0]!, /first 2026-01-01 00:00:00Z {2}last 2026-01-01 00:00:00Z {2}1 logins/);
  deepEqual(await c.lines("ip-history 5"), ["no address recorded for user 5"]);
  deepEqual(await c.lines("ban 100 cheating"), ["banned user 100 and disconnected them"]);
  await alice.closed;
  ok(systemChat(alice).some((l) => l.includes("cheating")));
  await assertRejectsWithReason(c.h.login(100), "You have been banned from this server. Reason: cheating");
  deepEqual(await c.lines("ban 300"), ["banned user 300"]);
  const list = await c.lines("banlist");
  deepEqual(list[0], "banned users (2):");
  match(list[1]!, /^ {2}100 {2}2026-01-01 00:00:00Z {2}cheating$/);
  match(list[2]!, /^ {2}300 .*\(no reason\)$/);
  deepEqual(await c.lines("unban 100"), ["unbanned user 100"]);
  deepEqual(await c.lines("pardon 300"), ["unbanned user 300"]);
  ok(!(await c.run("unban 300")).ok);
  const bob = await c.h.login(200);
  deepEqual(await c.lines("ban ip 200 proxy abuse"), ["banned 127.0.0.1; 1 session(s) disconnected"]);
  await bob.closed;
  deepEqual((await c.lines("banlist")).slice(-2), [
    "banned addresses (1):",
    "  127.0.0.1  2026-01-01 00:00:00Z  proxy abuse",
  ]);
  deepEqual(await c.lines("ban ip 10.0.0.7"), ["banned 10.0.0.7; 0 session(s) disconnected"]);
  const noIp = await c.run("ban ip 999");
  ok(!noIp.ok && noIp.code === "USER_NOT_FOUND");
  ok(!(await c.run("ban ip not-an-ip")).ok);
  deepEqual(await c.lines("unban ip 127.0.0.1"), ["unbanned 127.0.0.1"]);
  deepEqual(await c.lines("unban ip 10.0.0.7"), ["unbanned 10.0.0.7"]);
  ok(!(await c.run("unban ip 10.0.0.7")).ok);
  await c.close();
});

Deno.test("console admin-id list, add, remove, set", async () => {
  const c = await startConsoleHarness({ config: { admin_game_ids: [5] } });
  deepEqual(await c.lines("admin-id list"), ["administrator ids: 5"]);
  deepEqual(await c.lines("admin-id add 100"), ["user 100 is now an administrator"]);
  equal((await c.run("admin-id add 100")).ok, false);
  deepEqual(await c.lines("admin-id remove 5"), ["user 5 is no longer an administrator"]);
  const gone = await c.run("admin-id remove 5");
  ok(!gone.ok && gone.code === "USER_NOT_FOUND");
  deepEqual(await c.lines("admin-id set 1, 2 3"), ["administrator ids: 1, 2, 3"]);
  deepEqual([...c.h.server.core.adminIds], [1, 2, 3]);
  deepEqual(await c.lines("admin-id set"), ["administrator ids: none"]);
  ok(!(await c.run("admin-id set 1 x")).ok);
  await c.close();
});

Deno.test("console broadcast all, room and user send system chat", async () => {
  const c = await startConsoleHarness();
  const alice = await c.h.login(100);
  const bob = await c.h.login(200);
  await alice.createRoom("abc");
  deepEqual(await c.lines("broadcast all hello everyone"), ["sent to 2 user(s)"]);
  deepEqual(await c.lines('broadcast room abc "room  only"'), ["sent to 1 member(s) of abc"]);
  deepEqual(await c.lines("broadcast user 200 just you"), ["sent to user 200"]);
  await waitUntil(() => systemChat(bob).length === 2 && systemChat(alice).length === 2, "broadcasts");
  deepEqual(systemChat(alice), ["[Broadcast] hello everyone", "[Broadcast] room  only"]);
  deepEqual(systemChat(bob), ["[Broadcast] hello everyone", "[Broadcast] just you"]);
  ok(!(await c.run("broadcast room zzz hi")).ok);
  const off = await c.run("broadcast user 999 hi");
  ok(!off.ok && off.code === "USER_NOT_FOUND");
  const long = await c.run(`broadcast all ${"x".repeat(201)}`);
  ok(!long.ok && long.message === "message longer than 200 characters");
  ok(!(await c.run("broadcast all")).ok);
  await c.close();
});

Deno.test("console playtime, playtime top and user-rooms/rh from memory", async () => {
  const c = await startConsoleHarness();
  const alice = await c.h.login(100);
  await alice.createRoom("abc");
  await c.h.advance(65_000);
  deepEqual(await c.lines("playtime 100"), ["user 100: 1m 05s in rooms"]);
  deepEqual(await c.lines("playtime 7"), ["user 7: 0s in rooms"]);
  deepEqual(await c.lines("playtime top"), ["#1 Alice(100)  1m 05s"]);
  await alice.leaveRoom();
  const rooms = await c.lines("rh 100");
  deepEqual(rooms, [
    "rooms of user 100 (memory: since this process started):",
    "  abc  joined 2026-01-01 00:00:00Z  left 2026-01-01 00:01:05Z",
  ]);
  deepEqual(await c.lines("user-rooms 200"), [
    "no room visits recorded for user 200 (memory: since this process started)",
  ]);
  await c.close();
});

Deno.test("console rooms, room create-empty, info, i, uuid, close", async () => {
  const c = await startConsoleHarness();
  deepEqual(await c.lines("rooms"), ["no rooms"]);
  deepEqual(await c.lines("room create-empty lobby persistent system-host"), [
    "room lobby created (persistent) with the system host",
  ]);
  deepEqual(await c.lines("room create-empty -secret http://api.example"), ["room -secret created"]);
  const dup = await c.run("room create-empty lobby");
  ok(!dup.ok && dup.code === "CONFLICT");
  ok(!(await c.run("room create-empty x bogus")).ok);
  const list = await c.lines("r");
  deepEqual(list, [
    "2 room(s):",
    "  lobby  SelectingChart  0/100  host system  no chart [persistent]",
    "  -secret  SelectingChart  0/100  host none  no chart [hidden]",
  ]);
  const alice = await c.h.login(100);
  await alice.joinRoom("lobby");
  const info = await c.lines("room i lobby");
  equal(info[0], `room lobby  uuid ${c.h.server.core.rooms.get("lobby")!.uuid}`);
  ok(info.some((l) => l === "  players 1/100: Alice(100)"), info.join("\n"));
  ok(info.some((l) => l.includes("api endpoint server default")));
  ok((await c.lines("room info -secret")).some((l) => l.includes("api endpoint http://api.example")));
  deepEqual(await c.lines("room uuid lobby"), [c.h.server.core.rooms.get("lobby")!.uuid]);
  const missing = await c.run("room info nope");
  ok(!missing.ok && missing.code === "ROOM_NOT_FOUND");
  deepEqual(await c.lines("room close lobby"), ["room lobby closed"]);
  deepEqual(await c.lines("room close -secret"), ["room -secret closed"], "empty persistent/hidden rooms close too");
  equal(c.h.server.core.rooms.size, 0);
  await waitUntil(() => systemChat(alice).some((l) => l.includes("lobby")), "close notice");
  equal(c.h.server.core.users.get(100)?.roomId, null);
  await c.close();
});

Deno.test("console room start, ready, cancel, kick, force-move, transfer, ban, unban, banlist", async () => {
  const c = await startConsoleHarness();
  const alice = await c.h.login(100);
  const bob = await c.h.login(200);
  const carol = await c.h.login(300);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await carol.createRoom("xyz");
  const noChart = await c.run("room start abc");
  ok(!noChart.ok && noChart.code === "INVALID_STATE");
  deepEqual(await c.lines("room set abc chart 7"), ['room abc: chart 7 "Lucky Seven"']);
  deepEqual(await c.lines("room start abc"), ["room abc: start forced, now WaitingForReady"]);
  deepEqual(await c.lines("room cancel abc"), ["room abc: cancelled, now SelectingChart"]);
  await c.lines("room start abc");
  deepEqual(await c.lines("room ready abc 200"), ["user 200 is ready in abc"]);
  equal(c.h.server.core.rooms.get("abc")!.phase.kind, "play", "host and bob ready: the round starts");
  deepEqual(await c.lines("room cancel abc"), ["room abc: cancelled, now SelectingChart"]);
  deepEqual(await c.lines("room transfer abc 200"), ["user 200 is now host of abc"]);
  await waitUntil(() => bob.isHost === true, "bob becomes host");
  const notMember = await c.run("room transfer abc 300");
  ok(!notMember.ok && notMember.code === "USER_NOT_FOUND");
  deepEqual(await c.lines("room kick abc 200"), ["user 200 removed from abc"]);
  equal(c.h.server.core.users.get(200)?.roomId, null);
  ok(!(await c.run("room kick abc 200")).ok);
  deepEqual(await c.lines("room ban abc 200 griefing"), ["user 200 banned from abc"]);
  match((await c.lines("room banlist abc"))[0]!, /^200 {2}2026-01-01 00:00:00Z {2}griefing$/);
  await assertRejectsWithReason(bob.joinRoom("abc"), "You are banned from this room");
  deepEqual(await c.lines("room unban abc 200"), ["user 200 unbanned from abc"]);
  deepEqual(await c.lines("room banlist abc"), ["nobody is banned from abc"]);
  await bob.joinRoom("abc");
  deepEqual(await c.lines("room force-move xyz 200"), ["user 200 moved to xyz; their client reconnects into it"]);
  await bob.closed;
  equal(c.h.server.core.users.get(200)?.roomId, "xyz");
  const offline = await c.run("room force-move xyz 999");
  ok(!offline.ok && offline.code === "USER_NOT_FOUND");
  await c.close();
});

Deno.test("console room history, rounds and round after a played round (memory)", async () => {
  const c = await startConsoleHarness();
  const alice = await c.h.login(100);
  const bob = await c.h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  deepEqual(await c.lines("room history abc"), [
    "no settled rounds for abc (memory: this room's last rounds, play_history_cache_size)",
  ]);
  await alice.selectChart(7);
  await alice.requestStart();
  await bob.ready();
  await alice.played(100001);
  await bob.abort();
  const uuid = c.h.server.core.rooms.get("abc")!.rounds[0]!.uuid;
  const history = await c.lines("room history abc");
  deepEqual(history, [
    "rounds of abc (memory: this room's last rounds, play_history_cache_size):",
    `round ${uuid}  chart 7 "Lucky Seven"  2026-01-01 00:00:00Z  1 results, 1 aborted`,
    "  #1 Alice(100)  1000000  acc 100.00%  928/0/0/0  combo 928 FC",
    "  aborted: 200",
  ]);
  deepEqual(await c.lines("room rounds abc"), [
    `1. round ${uuid}  chart 7 "Lucky Seven"  2026-01-01 00:00:00Z  1 results, 1 aborted`,
  ]);
  deepEqual(await c.lines("room round abc 1"), history.slice(1));
  deepEqual(await c.lines(`room round abc ${uuid}`), history.slice(1));
  const none = await c.run("room round abc 2");
  ok(!none.ok && none.code === "INVALID_ARGUMENT");
  ok(!(await c.run("room history nope")).ok);
  await c.close();
});

Deno.test("console room set changes every field with validation", async (t) => {
  const c = await startConsoleHarness();
  const alice = await c.h.login(100);
  await alice.createRoom("abc");
  const room = () => c.h.server.core.rooms.get("abc")!;
  const cases: [string, string, () => unknown, unknown][] = [
    ["room set abc lock on", "room abc: lock on", () => room().locked, true],
    ["room set abc locked off", "room abc: lock off", () => room().locked, false],
    ["room set abc cycle true", "room abc: cycle on", () => room().cycle, true],
    ["room set abc hidden yes", "room abc: hidden on", () => room().hidden, true],
    ["room set abc persistent on", "room abc: persistent on", () => room().persistent, true],
    ["room set abc degraded on", "room abc: degraded on", () => room().degraded, true],
    ["room set abc degraded off", "room abc: degraded off", () => room().degraded, false],
    ["room set abc tournament on", "room abc: tournament on", () => room().tournament, true],
    ["room set abc live on", "room abc: live on", () => room().live, true],
    ["room set abc host system", "room abc: host system", () => room().hostId, -1],
    ["room set abc host 100", "room abc: host 100", () => room().hostId, 100],
    ["room set abc host none", "room abc: host none (the next player to join takes it)", () => room().hostId, null],
    ["room set abc chart 42 My Chart", 'room abc: chart 42 "My Chart"', () => room().chart?.name, "My Chart"],
    [
      "room set abc api_endpoint https://api.example",
      "room abc: api endpoint https://api.example",
      () => room().apiEndpoint,
      "https://api.example",
    ],
    ["room set abc api_endpoint default", "room abc: api endpoint server default", () => room().apiEndpoint, null],
    ["room set abc max_users 8", "room abc: max_users 8", () => room().maxPlayers, 8],
  ];
  for (const [line, out, read, value] of cases) {
    await t.step(line, async () => {
      deepEqual(await c.lines(line), [out]);
      deepEqual(read(), value);
    });
  }
  for (
    const bad of [
      "room set abc lock maybe",
      "room set abc colour red",
      "room set abc host x",
      "room set abc chart x",
      "room set abc api_endpoint ftp://x",
      "room set abc max_users 0",
      "room set zzz lock on",
    ]
  ) {
    await t.step(`refuses ${bad}`, async () => equal((await c.run(bad)).ok, false));
  }
  await c.close();
});

Deno.test("console roomcreation and connections switch at run time and survive config reload", async () => {
  const c = await startConsoleHarness();
  deepEqual(await c.lines("roomcreation"), ["room creation is on"]);
  deepEqual(await c.lines("roomcreation off"), ["room creation is off"]);
  const alice = await c.h.login(100);
  await assertRejectsWithReason(alice.createRoom("x"), "Room creation is disabled on this server");
  deepEqual(await c.lines("connections off"), ["new connections are turned away"]);
  c.file =
    `${BASE_FILE}room_creation_enabled: false\nchat_enabled: false\nport: 4000\nlog_level: warn\nadmin_game_ids: [7]\n`;
  const reload = await c.lines("config reload");
  deepEqual(reload, [
    "configuration reloaded from /srv/server_config.yml: 5 changed",
    "  applied: admin_game_ids, chat_enabled, log_level",
    "  take effect after a restart: port",
    "  note: room_creation_enabled applies at startup only; the runtime switch stays off (use roomcreation on|off)",
  ]);
  equal(c.h.server.ctx.config.chat_enabled, false);
  deepEqual([...c.h.server.core.adminIds], [7]);
  deepEqual(c.h.server.core.switches, { roomCreation: false, connections: false }, "switches keep their values");
  deepEqual(await c.lines("roomcreation on"), ["room creation is on"]);
  deepEqual(await c.lines("connections on"), ["new connections are accepted"]);
  deepEqual(await c.lines("config reload"), ["configuration reloaded from /srv/server_config.yml: nothing changed"]);
  equal(c.h.server.core.switches.roomCreation, true, "a reload without changes leaves the switch alone");
  c.file = "port: nope\n";
  const bad = await c.run("config reload");
  ok(!bad.ok && bad.code === "INVALID_ARGUMENT" && bad.message.startsWith("configuration is invalid; nothing changed"));
  ok(!(await c.run("roomcreation maybe")).ok);
  await c.close();
});

Deno.test("console check-config validates the sources and shows live figures without applying", async () => {
  const c = await startConsoleHarness();
  await c.h.login(100);
  c.file = `${BASE_FILE}server_name: Renamed\nadmin_password: hunter2-but-long\n`;
  const out = await c.lines("check-config");
  equal(out[0], "configuration is valid");
  ok(out.some((l) => /^ {2}server_name += "?Renamed"? +\(file server_config\.yml\)$/.test(l)), out.join("\n"));
  ok(out.some((l) => /^ {2}admin_password += \*\*\*\*/.test(l)), "secrets are masked");
  ok(!out.join("\n").includes("hunter2"));
  ok(
    out.includes(
      "differs from the running configuration: server_name, admin_password (config reload picks up what can change at run time)",
    ),
  );
  equal(out.at(-1), "active: 1 sessions, 1 users online, 0 rooms");
  equal(c.h.server.ctx.config.server_name, "Chorus", "nothing applied");
  c.file = "port: 0\n";
  const bad = await c.run("check-config");
  ok(!bad.ok && bad.code === "INVALID_ARGUMENT");
  await c.close();
});

Deno.test("console approve openuds lists and approves through the queue, or says the socket is off", async () => {
  const off = await startConsoleHarness();
  const r = await off.run("approve openuds abc");
  ok(
    !r.ok && r.code === "UNAVAILABLE" &&
      r.message === "OpenUDS approval mode is not running (the local socket is off or uses auth_token)",
  );
  await off.close();
  const approved: string[] = [];
  const queue: ApprovalQueue = {
    approve: (id) => (id === "good" ? (approved.push(id), "approved") : id === "old" ? "expired" : "unknown"),
    pending: () => [{ pending_id: "good", client_name: "dashboard", expires_at: Date.UTC(2026, 0, 1, 0, 2) }],
  };
  const c = await startConsoleHarness({ deps: { approvals: queue } });
  deepEqual(await c.lines("approve openuds"), ["good  dashboard  expires 2026-01-01 00:02:00Z"]);
  deepEqual(await c.lines("approve openuds good"), ["OpenUDS client good approved"]);
  deepEqual(approved, ["good"]);
  deepEqual((await c.run("approve openuds old")).lines[0], "error: approval request old expired");
  deepEqual((await c.run("approve openuds what")).lines[0], "error: no approval request what");
  await c.close();
});

Deno.test("console welcome-config shows the configuration, placeholders and a preview", async () => {
  const c = await startConsoleHarness({
    config: {
      welcome: { enabled: true, show_time: false, messages: { "en-US": ["Hi [user_name] on [server_name]"] } },
    },
  });
  deepEqual(await c.lines("welcome-config"), [
    "welcome: enabled, [time] not shown",
    "  en-US:",
    "    Hi [user_name] on [server_name]",
    "placeholders: [user_name] [user_id] [player-count] [players] [players-online] [server_name] [time] [playtime] [playtime <id>] [top_playtime] [active_rooms]",
    "preview (en-US, user Example(0)):",
    "  Hi Example on Chorus",
  ]);
  await c.close();
});

Deno.test("console runtime shows every section and runtime latency the 9-bucket histograms", async () => {
  const c = await startConsoleHarness();
  const alice = await c.h.login(100);
  await alice.createRoom("abc");
  const out = await c.lines("runtime");
  for (const section of ["registry:", "upstream:", "events:", "schema:", "persistence:", "latency:"]) {
    ok(out.includes(section), `section ${section}`);
  }
  ok(out.includes("  users_online: 1"));
  ok(out.includes("  rooms: 1"));
  ok(out.includes("  enabled: false"));
  ok(out.some((l) => l.startsWith("  registered_commands: ")));
  ok(out.some((l) => l.startsWith("  available: true")), "the real upstream client reports statistics");
  ok(out.some((l) => /^ {2}response: \d+ samples/.test(l)));
  const latency = await c.lines("runtime latency");
  equal(latency.length, 20);
  match(latency[0]!, /^response latency .*: [1-9]\d* samples/);
  deepEqual(latency.slice(1, 10).map((l) => l.trim().split(/\s+/)[0]), [
    "<1ms",
    "<5ms",
    "<10ms",
    "<50ms",
    "<100ms",
    "<500ms",
    "<1000ms",
    "<5000ms",
    ">=5000ms",
  ]);
  match(latency[10]!, /^handshake latency .*: 1 samples/);
  await c.close();
});

Deno.test("console journal tools, benchmark and plugin commands say when their subsystem is absent", async () => {
  const c = await startConsoleHarness();
  for (const line of ["wal inspect", "dead-letter list", "dead-letter replay"]) {
    const r = await c.run(line);
    ok(!r.ok && r.code === "UNAVAILABLE", line);
    deepEqual(r.lines, ["error: persistence is not enabled: the server runs in memory-only mode (no journal)"]);
  }
  for (const line of ["benchmark", "benchmark 5 2", "benchmark run ramp 10 3"]) {
    const r = await c.run(line);
    ok(!r.ok && r.code === "UNAVAILABLE" && r.message.includes("benchmark"), line);
  }
  ok(!(await c.run("benchmark run sideways")).ok);
  for (const line of ["plugin list", "plugin", "extension list", "extension get user 5"]) {
    const r = await c.run(line);
    ok(!r.ok && r.code === "UNAVAILABLE" && r.message.includes("plugin host is not running"), line);
  }
  // The updater is the process's (src/app.ts); a registry without it says so.
  for (const line of ["update", "update check", "update auto on"]) {
    const r = await c.run(line);
    ok(!r.ok && r.code === "UNAVAILABLE" && r.message === "self-update is not running in this process", line);
  }
  await c.close();
});

Deno.test("console journal tools and benchmark run through their dependencies when present", async () => {
  const calls: string[] = [];
  const c = await startConsoleHarness({
    deps: {
      schemaVersion: 3,
      persistence: fakePersistence({
        status: () => ({ backend: "sqlite", mode: "memory", queue_depth: 0 }),
        walInspect: () =>
          Promise.resolve({ dir: "data/journal", segments: [{ file: "00000001.wal", records: 40 }], pending: 0 }),
        deadLetters: (limit) => {
          calls.push(`dead ${limit}`);
          return Promise.resolve([{
            seq: 17,
            body: '{"t":"event"}',
            error: "constraint",
            attempts: 5,
            failed_at: Date.UTC(2026, 0, 1),
          }, { seq: 18, body: "{oops", error: "bad json", attempts: 1, failed_at: Date.UTC(2026, 0, 1) }]);
        },
        replayDeadLetters: () => Promise.resolve({ replayed: 1, failed: [{ seq: 18, ok: false, error: "bad json" }] }),
      }),
      benchmark: benchmarkRunner((o) => {
        calls.push(`${o.mode} ${o.durationSecs} ${o.rooms}`);
        return Promise.resolve({ lines: ["report line"] });
      }),
    },
  });
  deepEqual(await c.lines("wal inspect"), [
    "journal:",
    "  dir: data/journal",
    "  segments (1):",
    '    {"file":"00000001.wal","records":40}',
    "  pending: 0",
  ]);
  deepEqual(await c.lines("dead-letter list 5"), [
    "seq 17  event  5 attempts  failed 2026-01-01 00:00:00Z  constraint",
    "seq 18  unparseable  1 attempts  failed 2026-01-01 00:00:00Z  bad json",
  ]);
  deepEqual(await c.lines("dead-letter replay"), ["replayed 1; 1 failed again and stay", "  seq 18: bad json"]);
  deepEqual(await c.lines("benchmark"), ["benchmark fixed: 30 s, 100 rooms, 2 players per room", "report line"]);
  deepEqual(await c.lines("benchmark run ramp 10 3"), [
    "benchmark ramp: 10 s, up to 3 rooms, until CPU 90 % or RSS 2048 MB, 2 players per room",
    "report line",
  ]);
  deepEqual(calls, ["dead 5", "fixed 30 100", "ramp 10 3"]);
  const runtime = await c.lines("runtime");
  ok(runtime.includes("  backend: sqlite"), runtime.join("\n"));
  ok(runtime.includes("  version: 3"), runtime.join("\n"));
  await c.close();
});

Deno.test("console benchmark forms reach the runner with their options; bad ones and a busy runner are refused", async () => {
  const received: BenchmarkOptions[] = [];
  let busy = false;
  const c = await startConsoleHarness({
    deps: {
      benchmark: benchmarkRunner((o) => {
        if (busy) {
          return Promise.reject(new BenchmarkError("BUSY", "Cannot run the benchmark: a benchmark is already running"));
        }
        received.push(o);
        return Promise.resolve({ lines: ["report"] });
      }),
    },
  });
  const base = { mode: "fixed", playersPerRoom: 2, roundSecs: 30, cpuPercent: 90, rssMb: 2048 };
  const forms: [string, Record<string, unknown>][] = [
    ["benchmark", { ...base, durationSecs: 30, rooms: 100 }],
    ["benchmark 2 1", { ...base, durationSecs: 2, rooms: 1 }],
    ["benchmark run fixed", { ...base, durationSecs: 60, rooms: 100 }],
    ["benchmark run fixed --playing-rooms 20 --duration 10m --players 4", {
      ...base,
      durationSecs: 600,
      rooms: 20,
      playersPerRoom: 4,
    }],
    ["benchmark run ramp", { ...base, mode: "ramp", durationSecs: 60, rooms: 5000 }],
    ["benchmark run ramp --cpu 80 --ram 1g --duration 2m", {
      ...base,
      mode: "ramp",
      durationSecs: 120,
      rooms: 5000,
      cpuPercent: 80,
      rssMb: 1024,
    }],
    ["benchmark run ramp 10 3", { ...base, mode: "ramp", durationSecs: 10, rooms: 3 }],
  ];
  for (const [line, want] of forms) {
    received.length = 0;
    const r = await c.run(line);
    ok(r.ok, `${line}: ${r.lines.join(" / ")}`);
    equal(r.lines.at(-1), "report", line);
    equal(received.length, 1, line);
    const got = received[0]! as unknown as Record<string, unknown>;
    deepEqual(Object.fromEntries(Object.keys(want).map((k) => [k, got[k]])), want, line);
  }
  received.length = 0;
  const bad: [string, RegExp][] = [
    ["benchmark run ramp --ram lots", /--ram: "lots" is not a number/],
    ["benchmark run fixed --rooms", /--rooms needs a value/],
    ["benchmark run fixed --speed 3", /unexpected "--speed"/],
    ["benchmark run sideways", /expected one of fixed, ramp/],
    ["benchmark 0", /invalid dur_s "0"/],
    ["benchmark 30 6000", /invalid rooms "6000": expected an integer between 1 and 5000/],
  ];
  for (const [line, message] of bad) {
    const r = await c.run(line);
    ok(!r.ok && r.code === "INVALID_ARGUMENT" && message.test(r.message), `${line}: ${r.lines.join(" / ")}`);
    ok(r.lines.some((l) => l.startsWith("usage: benchmark")), line);
  }
  deepEqual(received, [], "no bad line reached the runner");
  busy = true;
  const r = await c.run("benchmark 5 1");
  ok(!r.ok && r.code === "CONFLICT", JSON.stringify(r));
  deepEqual(r.lines, ["error: Cannot run the benchmark: a benchmark is already running"]);
  await c.close();
});

Deno.test("console history, playtime and ip-history read the durable store when it is plugged in", async () => {
  const round = {
    round_uuid: "r-1",
    room_id: "gone",
    chart_id: 7,
    chart_name: "Lucky Seven",
    started_at: Date.UTC(2026, 0, 1),
    finished_at: Date.UTC(2026, 0, 1, 0, 2),
    aborted: [],
  };
  const record = {
    id: 5,
    player: 100,
    score: 900000,
    accuracy: 0.95,
    perfect: 900,
    good: 20,
    bad: 5,
    miss: 3,
    max_combo: 400,
    full_combo: false,
    std: 0,
    std_score: 0,
  };
  const c = await startConsoleHarness({
    deps: {
      persistence: fakePersistence({
        playtime: (id) => Promise.resolve(id === 100 ? 3_723_000 : 0),
        topPlaytime: () => Promise.resolve([{ user_id: 100, name: "Alice", total_ms: 3_723_000 }]),
        queries: {
          ipHistory: () =>
            Promise.resolve([{ ip: "192.0.2.9", first_seen_at: Date.UTC(2025, 0, 1), last_seen_at: 0, use_count: 9 }]),
          userRoomHistory: (id) =>
            Promise.resolve(
              id === 100
                ? [{
                  room_id: "gone",
                  room_uuid: "u-1",
                  monitor: false,
                  joined_at: Date.UTC(2026, 0, 1),
                  left_at: null,
                }]
                : [],
            ),
          roundsByRoom: (room) => Promise.resolve(room === "gone" ? [round] : []),
          round: (uuid) => Promise.resolve(uuid === "r-1" ? round : null),
          roundResults: () => Promise.resolve([{ record }]),
        },
      }),
    },
  });
  deepEqual(await c.lines("rh 100"), ["rooms of user 100:", "  gone  joined 2026-01-01 00:00:00Z  still inside"]);
  const history = await c.lines("room history gone");
  deepEqual(history, [
    "rounds of gone:",
    'round r-1  chart 7 "Lucky Seven"  2026-01-01 00:00:00Z  1 results',
    "  #1 ?(100)  900000  acc 95.00%  900/20/5/3  combo 400",
  ]);
  deepEqual(await c.lines("room round gone r-1"), history.slice(1));
  deepEqual(await c.lines("room round gone 1"), history.slice(1));
  ok(!(await c.run("room round other r-1")).ok);
  deepEqual(await c.lines("playtime 100"), ["user 100: 1h 02m 03s in rooms"]);
  deepEqual(await c.lines("playtime top"), ["#1 Alice(100)  1h 02m 03s"]);
  deepEqual((await c.lines("ip-history 100")).map((l) => l.split("  ")[0]), ["192.0.2.9"]);
  deepEqual(await c.lines("ban ip 100"), ["banned 192.0.2.9; 0 session(s) disconnected"]);
  await c.close();
});
