/**
 * OpenUDS commands about people and the server (spec 3 §4.5): admin ids,
 * users, players, broadcasts, server statistics and switches, config reload,
 * shutdown, `cli.execute`, logs, journal batches, runtime sections, plugins,
 * and the envelope rules (ids echoed, unknown commands).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { PhiraClient } from "../src/client/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { BASE_FILE, fakePersistence } from "./support/console.ts";
import { startUdsHarness } from "./support/uds.ts";

function systemChat(c: PhiraClient): string[] {
  return c.received.flatMap((m) =>
    m.type === "Message" && m.message.type === "Chat" && m.message.user === 0 ? [m.message.content] : []
  );
}

Deno.test("openuds envelope: ids are echoed; missing and unknown commands are errors", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  await a.send({ id: 42, command: "admin.id_list" });
  deepEqual(await a.next(), { type: "response", id: 42, ok: true, data: { admin_ids: [] } });
  await a.send({ type: "request", command: "admin.id_list" });
  deepEqual(await a.next(), { type: "response", id: null, ok: true, data: { admin_ids: [] } });
  await a.send({ type: "command", id: "x" });
  deepEqual(await a.next(), {
    type: "response",
    id: "x",
    ok: false,
    error: { code: "INVALID_ARGUMENT", message: "command required" },
  });
  deepEqual(await a.fail("room.teleport"), { code: "UNKNOWN_COMMAND", message: "unknown command: room.teleport" });
  equal((await a.fail("admin.id_add", "not an object")).code, "INVALID_ARGUMENT");
  await u.close();
});

Deno.test("openuds admin.id_list, id_add, id_remove, id_set and users.list", async () => {
  const u = await startUdsHarness({ config: { admin_game_ids: [5] } });
  const a = await u.client();
  deepEqual(await a.ok("admin.id_list"), { admin_ids: [5] });
  deepEqual(await a.ok("admin.id_add", { user_id: 100 }), { admin_ids: [5, 100] });
  deepEqual(await a.ok("admin.id_remove", { user_id: 5 }), { admin_ids: [100] });
  equal((await a.fail("admin.id_remove", { user_id: 5 })).code, "USER_NOT_FOUND");
  deepEqual(await a.ok("admin.id_set", { user_ids: [3, 1, 2] }), { admin_ids: [1, 2, 3] });
  equal((await a.fail("admin.id_set", { user_ids: [1, "2"] })).code, "INVALID_ARGUMENT");
  equal((await a.fail("admin.id_add", { user_id: 1.5 })).code, "INVALID_ARGUMENT");
  deepEqual(await a.ok("users.list"), { users: [], count: 0 });
  const alice = await u.c.h.login(100);
  await alice.createRoom("abc");
  deepEqual(await a.ok("users.list"), {
    count: 1,
    users: [{
      user_id: 100,
      name: "Alice",
      language: "en-US",
      online: true,
      room_id: "abc",
      monitor: false,
      category: "normal",
      ip: "127.0.0.1",
      admin: false,
    }],
  });
  await u.close();
});

Deno.test("openuds player.info, kick, ban, unban, banlist, ban_ip, unban_ip, ip_history", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  const alice = await u.c.h.login(100);
  const info = await a.ok("player.info", { user_id: 100 }) as Record<string, unknown>;
  equal(info.online, true);
  equal(info.known, true);
  equal(info.banned, false);
  equal(info.playtime_secs, 0);
  deepEqual(await a.ok("player.info", { user_id: 7 }), {
    user_id: 7,
    online: false,
    admin: false,
    known: false,
    banned: false,
    ban_reason: null,
    playtime_secs: 0,
  });
  const history = await a.ok("player.ip_history", { user_id: 100 }) as { ip_history: { ip: string }[] };
  deepEqual(history.ip_history.map((r) => r.ip), ["127.0.0.1"]);
  deepEqual(await a.ok("player.kick", { user_id: 100, reason: "bye" }), { user_id: 100, reason: "bye" });
  await alice.closed;
  equal((await a.fail("player.kick", { user_id: 100 })).code, "USER_NOT_FOUND");
  const bob = await u.c.h.login(200);
  deepEqual(await a.ok("player.ban", { user_id: 200, reason: "cheat" }), {
    user_id: 200,
    reason: "cheat",
    disconnected: true,
  });
  await bob.closed;
  const banned = await a.ok("player.info", { user_id: 200 }) as Record<string, unknown>;
  equal(banned.banned, true);
  equal(banned.ban_reason, "cheat");
  deepEqual(await a.ok("player.unban", { user_id: 200 }), { user_id: 200 });
  equal((await a.fail("player.unban", { user_id: 200 })).code, "USER_NOT_FOUND");
  const carol = await u.c.h.login(300);
  deepEqual(await a.ok("player.ban_ip", { target: "300", reason: "proxy" }), {
    ips: ["127.0.0.1"],
    reason: "proxy",
    disconnected: 1,
  });
  await carol.closed;
  deepEqual(await a.ok("player.ban_ip", { target: "192.0.2.1" }), { ips: ["192.0.2.1"], reason: "", disconnected: 0 });
  equal((await a.fail("player.ban_ip", { target: "999" })).code, "USER_NOT_FOUND");
  equal((await a.fail("player.ban_ip", { target: "not-an-ip" })).code, "INVALID_ARGUMENT");
  const list = await a.ok("player.banlist") as { bans: unknown[]; ip_bans: { ip: string }[] };
  deepEqual(list.bans, []);
  deepEqual(list.ip_bans.map((b) => b.ip), ["127.0.0.1", "192.0.2.1"]);
  deepEqual(await a.ok("player.unban_ip", { ip: "127.0.0.1" }), { ip: "127.0.0.1" });
  equal((await a.fail("player.unban_ip", { ip: "127.0.0.1" })).code, "INVALID_ARGUMENT");
  await u.close();
});

Deno.test("openuds broadcast.all, room, user", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  const alice = await u.c.h.login(100);
  const bob = await u.c.h.login(200);
  await alice.createRoom("abc");
  deepEqual(await a.ok("broadcast.all", { message: "maintenance soon" }), { sent: 2 });
  deepEqual(await a.ok("broadcast.room", { room_id: "abc", message: "room note" }), { room_id: "abc", sent: 1 });
  deepEqual(await a.ok("broadcast.user", { user_id: 200, message: "psst" }), { user_id: 200, sent: 1 });
  await waitUntil(() => systemChat(alice).length === 2 && systemChat(bob).length === 2, "broadcasts");
  deepEqual(systemChat(alice), ["[Broadcast] maintenance soon", "[Broadcast] room note"]);
  deepEqual(systemChat(bob), ["[Broadcast] maintenance soon", "[Broadcast] psst"]);
  equal((await a.fail("broadcast.room", { room_id: "zzz", message: "x" })).code, "ROOM_NOT_FOUND");
  equal((await a.fail("broadcast.user", { user_id: 9, message: "x" })).code, "USER_NOT_FOUND");
  equal((await a.fail("broadcast.all", { message: "x".repeat(201) })).code, "INVALID_ARGUMENT");
  equal((await a.fail("broadcast.all", {})).code, "INVALID_ARGUMENT");
  await u.close();
});

Deno.test("openuds server.stats, status, roomcreation, connections, config_reload, shutdown", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  await u.c.h.login(100);
  const stats = await a.ok("server.stats") as Record<string, unknown>;
  deepEqual(stats, {
    users_online: 1,
    active_rooms: 0,
    active_sessions: 1,
    loaded_plugins: null,
    port: u.c.h.port,
    uptime_secs: 0,
    server_name: "Chorus",
    openuds_connections: 1,
  });
  const status = await a.ok("server.status") as Record<string, unknown>;
  equal(status.server, "Chorus");
  equal(status.api_version, "0.1");
  equal(status.running, true);
  deepEqual(await a.ok("server.roomcreation", { enabled: false }), { room_creation_enabled: false });
  equal(u.c.h.server.core.switches.roomCreation, false);
  deepEqual(await a.ok("server.connections", { enabled: false }), { connections_enabled: false });
  equal((await a.fail("server.roomcreation", { enabled: "off" })).code, "INVALID_ARGUMENT");
  u.c.file = `${BASE_FILE}chat_enabled: false\n`;
  deepEqual(await a.ok("server.config_reload"), {
    file: "/srv/server_config.yml",
    changed: ["chat_enabled"],
    applied: ["chat_enabled"],
    restart_required: [],
    notes: [],
  });
  deepEqual(u.c.h.server.core.switches, { roomCreation: false, connections: false }, "switches untouched by reload");
  u.c.file = "port: x\n";
  equal((await a.fail("server.config_reload")).code, "INVALID_ARGUMENT");
  deepEqual(u.c.shutdowns, []);
  const r = await a.ok("server.shutdown");
  deepEqual(r, { ok: true, message: "shutdown requested" });
  await waitUntil(() => u.c.shutdowns.length === 1, "shutdown requested after the response");
  match(u.c.shutdowns[0]!, /^openuds [0-9a-f-]{36}: server\.shutdown$/);
  await u.close();
});

Deno.test("openuds cli.execute runs any console command; logs.history and logs.input", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  deepEqual(await a.ok("cli.execute", { command: "roomcreation off" }), { output: ["room creation is off"] });
  const failed = await a.fail("cli.execute", { command: "kick nobody" });
  deepEqual(failed, {
    code: "INVALID_ARGUMENT",
    message: 'invalid user_id "nobody": expected an integer user id',
    output: ['error: invalid user_id "nobody": expected an integer user id', "usage: kick <user_id> [reason...]"],
  });
  equal((await a.fail("cli.execute", { command: "nope" })).code, "UNKNOWN_COMMAND");
  equal((await a.fail("cli.execute", {})).code, "INVALID_ARGUMENT");
  const logs = await a.ok("logs.history", { limit: 3 }) as { entries: { msg: string; line: string }[]; count: number };
  equal(logs.count, 3);
  ok(logs.entries.every((e) => typeof e.line === "string"));
  equal((await a.fail("logs.history", { limit: 2001 })).code, "INVALID_ARGUMENT");
  const inputs = await a.ok("logs.input", { limit: 6 }) as { inputs: { source: string; input: string }[] };
  deepEqual(inputs.inputs.map((i) => `${i.source}:${i.input}`), [
    "openuds:roomcreation off",
    "openuds:kick nobody",
    "openuds:nope",
    "openuds:logs.history",
    "openuds:logs.history",
    "openuds:logs.input",
  ]);
  await u.close();
});

Deno.test("openuds runtime.status, actors, persistence, phira", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  await u.c.h.login(100);
  const status = await a.ok("runtime.status") as Record<string, Record<string, unknown>>;
  for (const key of ["registry", "upstream", "events", "schema", "persistence", "latency", "openuds"]) {
    ok(key in status, key);
  }
  equal(status.registry!.users_online, 1);
  equal(status.openuds!.connections, 1);
  deepEqual((status.latency as { buckets: string[] }).buckets.length, 9);
  const actors = await a.ok("runtime.actors") as Record<string, unknown>;
  equal(actors.sessions, 1);
  equal(actors.users_online, 1);
  deepEqual(await a.ok("runtime.persistence"), { enabled: false, mode: "memory only: nothing is written to disk" });
  const phira = await a.ok("runtime.phira") as { available: boolean; stats: Record<string, unknown> };
  equal(phira.available, true);
  ok("me" in phira.stats, JSON.stringify(phira.stats));
  await u.close();
});

Deno.test("openuds persist.touches and persist.judges need persistence; with it they page by sequence", async () => {
  const off = await startUdsHarness();
  const a = await off.client();
  deepEqual(await a.fail("persist.touches"), {
    code: "UNAVAILABLE",
    message: "persistence is not enabled: the server runs in memory-only mode (no journal)",
  });
  equal((await a.fail("persist.judges", { limit: 501 })).code, "INVALID_ARGUMENT");
  await off.close();
  const queries: unknown[] = [];
  const persistence = fakePersistence({
    queries: {
      telemetry: (kind, q) => {
        queries.push({ kind, ...q });
        return Promise.resolve([{
          seq: 12,
          room_id: "abc",
          round_uuid: "r",
          player_id: 100,
          item_count: 2,
          items: [1, 2],
          first_at: 1,
          created_at: 2,
        }]);
      },
    },
  });
  const on = await startUdsHarness({ deps: { persistence } });
  const b = await on.client();
  const touches = await b.ok("persist.touches", { since: 10, limit: 50, round_uuid: "r", player_id: 100 }) as Record<
    string,
    unknown
  >;
  deepEqual(touches, {
    count: 1,
    next_since: 12,
    items: [{
      sequence: 12,
      room_id: "abc",
      round_uuid: "r",
      player_id: 100,
      count: 2,
      items: [1, 2],
      first_at: 1,
      created_at: 2,
    }],
  });
  await b.ok("persist.judges");
  deepEqual(queries, [
    { kind: "touches", since: 10, limit: 50, round: "r", player: 100 },
    { kind: "judges", since: 0, limit: 100 },
  ]);
  await on.close();
});

Deno.test("openuds plugin commands validate and say the plugin host is not available", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  for (
    const [cmd, params] of [
      ["plugin.list", {}],
      ["plugin.reload", {}],
      ["plugin.enable", { name: "p" }],
      ["plugin.disable", { name: "p" }],
      ["plugin.info", { name: "p" }],
      ["plugin.remove", { name: "p" }],
      ["plugin.call", { name: "p", method: "m", args: [1] }],
    ] as const
  ) {
    deepEqual(await a.fail(cmd, params), {
      code: "UNAVAILABLE",
      message: "the plugin host is not running in this process",
    });
  }
  equal((await a.fail("plugin.enable", {})).code, "INVALID_ARGUMENT");
  await u.close();
});
