/**
 * Every function of the Lua host table (the original's 48 under `phira`,
 * the same table as `game`, and the extras the built-in plugins use),
 * called from Lua through a probe plugin, with its real effect checked on
 * the server: bans in the ban list, rooms closed, messages on the wire.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { ORIGINAL_FUNCTIONS } from "../legacy/lua/host/table.ts";
import { waitUntil } from "./support/describe.ts";
import { type LegacyHarness, startLegacy } from "./support/legacy.ts";
import { PROBE_PLUGIN } from "./support/legacy_probe.ts";

async function probe(): Promise<LegacyHarness & { call(name: string, ...args: unknown[]): unknown[] }> {
  const t = await startLegacy({ plugins: { probe: PROBE_PLUGIN } });
  return Object.assign(t, {
    call(name: string, ...args: unknown[]): unknown[] {
      const r = t.mode.host.callFunction("probe", "call", [name, ...args]);
      if (!r.ok) throw new Error(r.message);
      return r.value as unknown[];
    },
  });
}

const chatTo = (lines: { type: string; message?: { type: string; content?: string } }[]) =>
  lines.filter((c) => c.type === "Message" && c.message?.type === "Chat").map((c) => c.message!.content);

Deno.test("lua host table: all 48 original functions exist under phira and game (the same table)", async () => {
  const t = await probe();
  try {
    equal(ORIGINAL_FUNCTIONS.length, 48);
    deepEqual(t.mode.host.callFunction("probe", "same_table", []), { ok: true, value: true });
    const missing = ORIGINAL_FUNCTIONS.filter((name) => {
      const r = t.mode.host.callFunction("probe", "kind", [name]);
      return !r.ok || r.value !== "function";
    });
    deepEqual(missing, []);
  } finally {
    await t.close();
  }
});

Deno.test("lua host users: get_user and friends return real values; kick, ban, unban act", async () => {
  const t = await probe();
  try {
    const alice = await t.h.login(100, "zh-CN");
    const bob = await t.h.login(200);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    const [okUser, user] = t.call("get_user", 100) as [boolean, Record<string, unknown>];
    ok(okUser);
    deepEqual(
      { ...user, ip: typeof user.ip },
      {
        id: 100,
        name: "Alice",
        language: "zh-CN",
        room_id: "abc",
        monitor: false,
        online: true,
        is_host: true,
        ip: "string",
      },
    );
    deepEqual(t.call("get_user", 999), [true, "nil"]);
    deepEqual(t.call("get_user", "x")[0], false, "a wrong argument type is a Lua error");
    match(String(t.call("get_user", "x")[1]), /phira\.get_user: argument 1 \(user id\) must be an integer/);
    deepEqual(t.call("get_user_name", 200), [true, "Bob"]);
    deepEqual(t.call("get_user_language", 100), [true, "zh-CN"]);
    deepEqual(t.call("get_user_room_id", 200), [true, "abc"]);
    deepEqual(t.call("get_user_room_id", 999), [true, "nil"]);
    deepEqual(t.call("get_connected_user_count"), [true, 2]);
    deepEqual(t.call("get_connected_user_ids"), [true, [100, 200]]);

    deepEqual(t.call("kick_user", 999), [true, false]);
    deepEqual(t.call("kick_user", 200, false, "spam"), [true, true]);
    await waitUntil(() => !t.h.server.core.users.has(200), "bob kicked");
    equal(t.h.server.core.rooms.get("abc")!.players.length, 1);

    deepEqual(t.call("ban_user", 300, "cheating"), [true, true]);
    equal(t.h.server.core.bans.userBan(300)?.reason, "cheating");
    deepEqual(t.call("is_user_banned", 300), [true, true]);
    deepEqual(t.call("is_user_banned", 301), [true, false]);
    deepEqual(t.call("get_banned_users"), [true, [300]]);
    deepEqual(t.call("unban_user", 300), [true, true]);
    deepEqual(t.call("unban_user", 300), [true, false], "not banned any more (the original hung here)");
    deepEqual(t.call("get_banned_users"), [true, []]);

    // preserve_room: the connection closes, the seat stays for the reconnect grace.
    deepEqual(t.call("kick_user", 100, true), [true, true]);
    await waitUntil(() => t.h.server.core.users.get(100)?.session === null, "alice disconnected");
    deepEqual(t.h.server.core.rooms.get("abc")!.players.map((p) => p.id), [100]);
  } finally {
    await t.close();
  }
});

Deno.test("lua host rooms: tables, counts, capacity 1-64, disband, virtual rooms, room bans enforced on join", async () => {
  const t = await probe();
  try {
    const alice = await t.h.login(100);
    const bob = await t.h.login(200);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    const [, room] = t.call("get_room", "abc") as [boolean, Record<string, unknown>];
    deepEqual(
      [room.id, room.name, room.host_id, room.owner_id, room.user_count, room.user_ids, room.state, room.max_users],
      ["abc", "abc", 100, 100, 2, [100, 200], "select_chart", 100],
    );
    deepEqual(t.call("get_room", "nope"), [true, "nil"]);
    deepEqual(t.call("get_room_list"), [true, ["abc"]]);
    deepEqual(t.call("get_active_room_count"), [true, 1]);
    deepEqual(t.call("get_room_user_count", "abc"), [true, 2]);
    deepEqual(t.call("get_room_user_ids", "abc"), [true, [100, 200]]);
    deepEqual(t.call("get_room_owner_id", "abc"), [true, 100]);
    deepEqual(t.call("get_room_max_users", "abc"), [true, 100]);
    deepEqual(t.call("set_max_users", "abc", 65), [true, false, "max users must be between 1 and 64"]);
    deepEqual(t.call("set_max_users", "abc", 2), [true, true]);
    equal(t.h.server.core.rooms.get("abc")!.maxPlayers, 2);
    deepEqual(t.call("get_room_max_users", "abc"), [true, 2]);

    // Room bans: the member is taken out, and a later join is refused, also for a room created later.
    deepEqual(t.call("ban_room_user", 200, "abc"), [true, true]);
    await waitUntil(() => t.h.server.core.rooms.get("abc")!.players.length === 1, "bob removed");
    deepEqual(t.call("is_user_banned_from_room", 200, "abc"), [true, true]);
    const refused = await bob.joinRoom("abc").then(() => "joined", (e: Error) => e.message);
    match(refused, /banned from this room/);
    deepEqual(t.call("ban_room_user", 200, "later"), [true, true]);
    await alice.leaveRoom();
    await alice.createRoom("later");
    match(await bob.joinRoom("later").then(() => "joined", (e: Error) => e.message), /banned from this room/);
    deepEqual(t.call("unban_room_user", 200, "later"), [true, true]);
    deepEqual(t.call("unban_room_user", 200, "later"), [true, false]);
    await bob.joinRoom("later");

    const [, virtual] = t.call("create_virtual_room", "_lobby") as [boolean, Record<string, unknown>];
    deepEqual([virtual.id, virtual.user_count, virtual.host_id], ["_lobby", 0, -1]);
    ok(t.h.server.core.rooms.get("_lobby")?.persistent);
    deepEqual(t.call("create_virtual_room", "_lobby")[1], "nil", "a second one of that id fails");

    deepEqual(t.call("disband_room", "later"), [true, true]);
    equal(t.h.server.core.rooms.has("later"), false);
    deepEqual(t.call("disband_room", "later")[1], false);
    deepEqual(t.call("get_room_list"), [true, ["_lobby"]], "abc went when its last player left");
  } finally {
    await t.close();
  }
});

Deno.test("lua host messages: logs carry the plugin id; chat lines reach one user, a room, everyone", async () => {
  const t = await probe();
  try {
    const alice = await t.h.login(100);
    const bob = await t.h.login(200);
    await alice.createRoom("abc");
    t.call("log_info", "hello from lua");
    t.call("log_error", "bad thing");
    const records = t.h.logs.history().filter((r) => r.fields.plugin === "probe").map((r) => `${r.level}:${r.msg}`);
    ok(records.includes("info:hello from lua") && records.includes("error:bad thing"), records.join("|"));

    deepEqual(t.call("send_to_user", 200, "chat", { message: "psst" }), [true, true]);
    deepEqual(t.call("send_to_user", 999, "chat", "x")[1], false);
    deepEqual(t.call("send_to_user", 200, "explode", "x")[0], false);
    const [, room] = t.call("get_room", "abc");
    deepEqual(t.call("broadcast_to_room", room, "chat", "to the room"), [true, true]);
    deepEqual(t.call("roomsay_message", "abc", "roomsay"), [true, true]);
    deepEqual(t.call("roomsay_message", "nope", "x")[1], false);
    deepEqual(t.call("broadcast_message", "everyone"), [true, true]);
    deepEqual(t.call("broadcast_message", "x".repeat(201))[1], false, "200 characters at most");
    await waitUntil(() => chatTo(bob.received as never).includes("everyone"), "bob's chat");
    deepEqual(chatTo(bob.received as never), ["psst", "everyone"]);
    await waitUntil(() => chatTo(alice.received as never).includes("everyone"), "alice's chat");
    deepEqual(chatTo(alice.received as never), ["to the room", "roomsay", "everyone"]);
  } finally {
    await t.close();
  }
});

Deno.test("lua host server: switches, shutdown, reload, JSON, admin data file", async () => {
  const t = await probe();
  try {
    deepEqual(t.call("get_replay_status"), [true, false]);
    deepEqual(t.call("set_replay_status", true), [true, true]);
    equal(t.mode.ctx.switches.replay, true);
    deepEqual(t.call("get_replay_status"), [true, true]);
    deepEqual(t.call("set_room_creation_status", false), [true, true]);
    deepEqual(t.call("get_room_creation_status"), [true, false]);
    const alice = await t.h.login(100);
    match(await alice.createRoom("abc").then(() => "created", (e: Error) => e.message), /Room creation is disabled/);
    t.call("set_room_creation_status", true);
    await alice.createRoom("abc");

    deepEqual(t.call("json_encode", { a: [1, 2], b: "x" }), [true, '{"a":[1,2],"b":"x"}']);
    deepEqual(t.call("json_decode", '{"k": [true, "x", 3], "n": null}'), [true, { k: [true, "x", 3] }]);
    equal(t.call("json_decode", "{oops")[1], "nil");

    t.call("ban_user", 7);
    t.call("ban_room_user", 8, "abc");
    deepEqual(t.call("save_admin_data"), [true, true]);
    const saved = JSON.parse(await Deno.readTextFile(join(t.dir, "cwd", "admin_data.json")));
    deepEqual(saved, { version: 1, bannedUsers: [7], bannedRoomUsers: { abc: [8] } });
    await Deno.writeTextFile(join(t.dir, "cwd", "admin_data.json"), JSON.stringify({ version: 1, bannedUsers: [9] }));
    deepEqual(t.call("load_admin_data"), [true, true]);
    ok(t.h.server.core.bans.userBan(9));

    deepEqual(t.call("shutdown_server"), [true, true]);
    deepEqual(t.shutdowns, ["plugin probe"]);

    t.mode.host.callFunction("probe", "clear", []);
    deepEqual(t.call("reload_plugins"), [true, true]);
    await t.settle();
    const after = t.mode.host.callFunction("probe", "hooks", []);
    deepEqual(after, { ok: true, value: [{ hook: "on_enable", args: [] }] }, "a fresh state after the reload");
  } finally {
    await t.close();
  }
});

Deno.test("lua host addresses: the game port's list and the admin API's list", async () => {
  const t = await probe();
  try {
    deepEqual(t.call("add_ip_to_blacklist", "10.0.0.1"), [true, true]);
    ok(t.h.server.core.bans.ipBan("10.0.0.1"));
    deepEqual(t.call("add_ip_to_blacklist", "not an address")[1], false);
    deepEqual(t.call("add_ip_to_blacklist", "10.0.0.2", false), [true, true]);
    ok(t.mode.ctx.lockouts.lockedUntil("10.0.0.2") !== null);
    equal(t.h.server.core.bans.ipBan("10.0.0.2"), undefined, "the admin API's list does not close the game port");
    deepEqual(t.call("is_ip_banned", "10.0.0.1"), [true, true]);
    deepEqual(t.call("is_ip_banned", "10.0.0.2"), [true, true]);
    deepEqual(t.call("is_ip_banned", "10.0.0.3"), [true, false]);
    deepEqual(t.call("get_banned_ips"), [true, ["10.0.0.1"]]);
    deepEqual(t.call("get_banned_ips", false), [true, ["10.0.0.2"]]);
    deepEqual(t.call("remove_ip_from_blacklist", "10.0.0.1"), [true, true]);
    deepEqual(t.call("remove_ip_from_blacklist", "10.0.0.1"), [true, false]);
    deepEqual(t.call("clear_ip_blacklist", false), [true, true]);
    deepEqual(t.call("get_banned_ips", false), [true, []]);
  } finally {
    await t.close();
  }
});

Deno.test("lua host contests: whitelist on join, manual start held by the organiser seat, start, disband after the round", async () => {
  const t = await probe();
  try {
    const alice = await t.h.login(100);
    const bob = await t.h.login(200);
    const carol = await t.h.login(300);
    await alice.createRoom("cup");
    deepEqual(t.call("add_contest_whitelist", "cup", 200)[1], false, "not a contest room yet");
    deepEqual(t.call("enable_contest", "cup", true, true), [true, true]);
    const room = t.h.server.core.rooms.get("cup")!;
    ok(room.tournament, "manual start runs on tournament mode");
    ok(room.monitors.some((m) => m.id < 0), "the organiser seat is a monitor");
    deepEqual(t.call("add_contest_whitelist", "cup", 200), [true, true]);
    match(await carol.joinRoom("cup").then(() => "joined", (e: Error) => e.message), /open to its participants only/);
    await bob.joinRoom("cup");
    deepEqual(t.call("remove_contest_whitelist", "cup", 300), [true, true]);

    await alice.selectChart(7);
    await alice.requestStart();
    await bob.ready();
    await t.settle();
    equal(t.h.server.core.rooms.get("cup")!.phase.kind, "wait", "everyone ready, the round waits for the organiser");
    deepEqual(t.call("start_contest", "cup"), [true, true]);
    equal(t.h.server.core.rooms.get("cup")!.phase.kind, "play");
    await alice.played(t.h.dev.state.addRecord({ player: 100, score: 900000 }).id);
    await bob.abort();
    await t.settle();
    equal(t.h.server.core.rooms.has("cup"), false, "disbanded after the round");
    deepEqual(t.call("disable_contest", "cup")[1], false);
  } finally {
    await t.close();
  }
});

Deno.test("lua host extras: server figures, admin users, moving users, room flags, replays", async () => {
  const t = await probe();
  try {
    const alice = await t.h.login(100);
    await alice.createRoom("abc");
    const [, stats] = t.call("get_server_stats") as [boolean, Record<string, unknown>];
    deepEqual([stats.users, stats.rooms, stats.plugins, typeof stats.version], [1, 1, 1, "string"]);
    t.h.server.core.adminIds.add(100);
    deepEqual(t.call("is_admin_user", 100), [true, true]);
    deepEqual(t.call("is_admin_user", 200), [true, false]);
    deepEqual(t.call("set_room_lock", "abc", true), [true, true]);
    deepEqual(t.call("set_room_cycle", "abc", true), [true, true]);
    deepEqual(t.call("set_room_hidden", "abc", true), [true, true]);
    const r = t.h.server.core.rooms.get("abc")!;
    deepEqual([r.locked, r.cycle, r.hidden], [true, true, true]);
    t.call("create_virtual_room", "_v");
    deepEqual(t.call("move_user", 100, "_v"), [true, true]);
    equal(t.h.server.core.users.get(100)?.roomId, "_v");
    deepEqual(t.call("list_replays", 100), [true, []]);
    deepEqual(t.call("delete_replay", 100, 1, 1), [true, false]);
  } finally {
    await t.close();
  }
});
