/**
 * OpenUDS `room.*` commands over a real socket (spec 3 §4.5): argument
 * validation, response data and error codes for each.
 */
import { deepEqual, equal } from "node:assert/strict";
import { waitUntil } from "./support/describe.ts";
import { startUdsHarness } from "./support/uds.ts";

Deno.test("openuds room.create, info, uuid, list (filters), close", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  const created = await a.ok("room.create", { room_id: "lobby", persistent_empty: true, system_host: true }) as Record<
    string,
    unknown
  >;
  equal(created.room_id, "lobby");
  equal(created.persistent, true);
  equal(created.host_id, -1);
  equal(created.system_host, true);
  deepEqual(created.players, []);
  await a.ok("room.create", { room_id: "-hidden", endpoint: "https://api.example" });
  deepEqual(await a.fail("room.create", { room_id: "lobby" }), {
    code: "CONFLICT",
    message: "room lobby already exists",
  });
  deepEqual(await a.fail("room.create", { room_id: "bad id!" }), {
    code: "INVALID_ARGUMENT",
    message: "room_id: expected a room id (1-20 letters, digits, - or _)",
  });
  deepEqual(await a.fail("room.create", {}), { code: "INVALID_ARGUMENT", message: "room_id: required" });
  equal((await a.fail("room.create", { room_id: "x", endpoint: "ftp://no" })).code, "INVALID_ARGUMENT");
  const info = await a.ok("room.info", { room_id: "-hidden" }) as Record<string, unknown>;
  equal(info.api_endpoint, "https://api.example");
  equal(info.hidden, true);
  const uuid = u.c.h.server.core.rooms.get("lobby")!.uuid;
  deepEqual(await a.ok("room.uuid", { room_id: "lobby" }), { room_id: "lobby", uuid });
  const list = await a.ok("room.list") as { rooms: { room_id: string }[]; total: number };
  deepEqual(list.rooms.map((r) => r.room_id), ["lobby", "-hidden"]);
  equal(list.total, 2);
  const visible = await a.ok("room.list", { filters: { hidden: false } }) as { rooms: { room_id: string }[] };
  deepEqual(visible.rooms.map((r) => r.room_id), ["lobby"]);
  const prefixed = await a.ok("room.list", { filters: { prefix: "-", state: "SelectingChart" } }) as { total: number };
  equal(prefixed.total, 1);
  equal((await a.fail("room.list", { filters: { state: "Dancing" } })).code, "INVALID_ARGUMENT");
  deepEqual(await a.fail("room.info", { room_id: "nope" }), {
    code: "ROOM_NOT_FOUND",
    message: "room not found: nope",
  });
  deepEqual(await a.ok("room.close", { room_id: "lobby" }), { room_id: "lobby", closed: true });
  equal((await a.fail("room.close", { room_id: "lobby" })).code, "ROOM_NOT_FOUND");
  await u.close();
});

Deno.test("openuds room.start, cancel_start, ready, set_chart, lock, cycle, set_host", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  const alice = await u.c.h.login(100);
  const bob = await u.c.h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  deepEqual(await a.fail("room.start", { room_id: "abc" }), {
    code: "INVALID_STATE",
    message: "No chart selected",
  });
  deepEqual(await a.ok("room.set_chart", { room_id: "abc", chart_id: 7 }), {
    room_id: "abc",
    chart_id: 7,
    chart_name: "Lucky Seven",
  });
  deepEqual(await a.ok("room.set_chart", { room_id: "abc", chart_id: 8, chart_name: "Named" }), {
    room_id: "abc",
    chart_id: 8,
    chart_name: "Named",
  });
  equal((await a.fail("room.set_chart", { room_id: "abc", chart_id: "8" })).code, "INVALID_ARGUMENT");
  deepEqual(await a.ok("room.start", { room_id: "abc" }), { room_id: "abc", state: "WaitingForReady" });
  deepEqual(await a.ok("room.cancel_start", { room_id: "abc" }), { room_id: "abc", state: "SelectingChart" });
  equal((await a.fail("room.cancel_start", { room_id: "abc" })).code, "INVALID_STATE");
  await a.ok("room.start", { room_id: "abc" });
  deepEqual(await a.ok("room.ready", { room_id: "abc", user_id: 200 }), {
    room_id: "abc",
    user_id: 200,
    state: "Playing",
  });
  equal((await a.fail("room.ready", { room_id: "abc", user_id: 999 })).code, "USER_NOT_FOUND");
  await a.ok("room.cancel_start", { room_id: "abc" });
  deepEqual(await a.ok("room.lock", { room_id: "abc", locked: true }), { room_id: "abc", locked: true });
  deepEqual(await a.ok("room.cycle", { room_id: "abc", cycle: true }), { room_id: "abc", cycle: true });
  deepEqual(await a.fail("room.lock", { room_id: "abc", locked: "yes" }), {
    code: "INVALID_ARGUMENT",
    message: "locked: expected true or false",
  });
  await waitUntil(() => bob.locked === true, "lock reaches the room");
  deepEqual(await a.ok("room.set_host", { room_id: "abc", host_id: 200 }), { room_id: "abc", host_id: 200 });
  await waitUntil(() => bob.isHost === true, "bob becomes host");
  deepEqual(await a.ok("room.set_host", { room_id: "abc", host_id: "system" }), { room_id: "abc", host_id: -1 });
  deepEqual(await a.ok("room.set_host", { room_id: "abc" }), { room_id: "abc", host_id: -1 });
  equal((await a.fail("room.set_host", { room_id: "abc", host_id: 999 })).code, "USER_NOT_FOUND");
  equal((await a.fail("room.set_host", { room_id: "abc", host_id: "bob" })).code, "INVALID_ARGUMENT");
  await u.close();
});

Deno.test("openuds room flag setters: tournament, live, hidden, persistent, degraded, api endpoint", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  await a.ok("room.create", { room_id: "abc" });
  const room = () => u.c.h.server.core.rooms.get("abc")!;
  deepEqual(await a.ok("room.set_tournament", { room_id: "abc", tournament: true }), {
    room_id: "abc",
    tournament: true,
  });
  deepEqual(await a.ok("room.set_live", { room_id: "abc", live: true }), { room_id: "abc", live: true });
  deepEqual(await a.ok("room.set_hidden", { room_id: "abc", hidden: true }), { room_id: "abc", hidden: true });
  deepEqual(await a.ok("room.set_persistent", { room_id: "abc", persistent: true }), {
    room_id: "abc",
    persistent: true,
  });
  deepEqual(await a.ok("room.set_degraded", { room_id: "abc", degraded: true }), { room_id: "abc", degraded: true });
  deepEqual(await a.ok("room.set_api_endpoint", { room_id: "abc", endpoint: "http://x.example" }), {
    room_id: "abc",
    endpoint: "http://x.example",
  });
  const r = room();
  deepEqual([r.tournament, r.live, r.hidden, r.persistent, r.degraded, r.apiEndpoint], [
    true,
    true,
    true,
    true,
    true,
    "http://x.example",
  ]);
  deepEqual(await a.ok("room.set_api_endpoint", { room_id: "abc", endpoint: null }), {
    room_id: "abc",
    endpoint: null,
  });
  equal(room().apiEndpoint, null);
  equal((await a.fail("room.set_live", { room_id: "abc" })).code, "INVALID_ARGUMENT");
  equal((await a.fail("room.set_hidden", { room_id: "zzz", hidden: true })).code, "ROOM_NOT_FOUND");
  await u.close();
});

Deno.test("openuds room.kick, force_move, ban, unban, banlist", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  const alice = await u.c.h.login(100);
  const bob = await u.c.h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  await a.ok("room.create", { room_id: "other" });
  deepEqual(await a.ok("room.kick", { room_id: "abc", user_id: 200, reason: "afk" }), { room_id: "abc", user_id: 200 });
  await waitUntil(
    () =>
      bob.received.some((m) => m.type === "Message" && m.message.type === "Chat" && m.message.content.includes("afk")),
    "kick reason",
  );
  equal((await a.fail("room.kick", { room_id: "abc", user_id: 200 })).code, "USER_NOT_FOUND");
  deepEqual(await a.ok("room.ban", { room_id: "abc", user_id: 200, reason: "spam" }), {
    room_id: "abc",
    user_id: 200,
    reason: "spam",
  });
  const list = await a.ok("room.banlist", { room_id: "abc" }) as { bans: { user_id: number; reason: string }[] };
  deepEqual(list.bans.map((b) => [b.user_id, b.reason]), [[200, "spam"]]);
  deepEqual(await a.ok("room.unban", { room_id: "abc", user_id: 200 }), { room_id: "abc", user_id: 200 });
  equal((await a.fail("room.unban", { room_id: "abc", user_id: 200 })).code, "USER_NOT_FOUND");
  deepEqual(await a.ok("room.force_move", { room_id: "other", user_id: 200, monitor: false }), {
    room_id: "other",
    user_id: 200,
    monitor: false,
  });
  await bob.closed;
  equal(u.c.h.server.core.users.get(200)?.roomId, "other");
  equal((await a.fail("room.force_move", { room_id: "other", user_id: 999 })).code, "USER_NOT_FOUND");
  equal((await a.fail("room.force_move", { room_id: "zzz", user_id: 100 })).code, "ROOM_NOT_FOUND");
  await u.close();
});

Deno.test("openuds room.chat_send refuses offline and cross-room senders; chat_history returns the lines", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  const alice = await u.c.h.login(100);
  const bob = await u.c.h.login(200);
  await alice.createRoom("abc");
  await bob.createRoom("xyz");
  deepEqual(await a.ok("room.chat_send", { room_id: "abc", user_id: 100, content: "hello from the socket" }), {
    room_id: "abc",
    user_id: 100,
    content: "hello from the socket",
  });
  await waitUntil(
    () => alice.received.some((m) => m.type === "Message" && m.message.type === "Chat" && m.message.user === 100),
    "chat",
  );
  deepEqual(await a.fail("room.chat_send", { room_id: "abc", user_id: 200, content: "forged" }), {
    code: "FORBIDDEN",
    message: "user 200 is not in room abc",
  });
  deepEqual(await a.fail("room.chat_send", { room_id: "abc", user_id: 300, content: "ghost" }), {
    code: "USER_NOT_FOUND",
    message: "user 300 is not online",
  });
  equal((await a.fail("room.chat_send", { room_id: "abc", user_id: 100, content: "" })).code, "INVALID_ARGUMENT");
  equal(
    (await a.fail("room.chat_send", { room_id: "abc", user_id: 100, content: "x".repeat(201) })).code,
    "INVALID_ARGUMENT",
  );
  equal((await a.fail("room.chat_send", { room_id: "zzz", user_id: 100, content: "x" })).code, "ROOM_NOT_FOUND");
  await alice.chat("typed in game");
  const history = await a.ok("room.chat_history", { room_id: "abc" }) as Record<string, unknown>;
  deepEqual(history, {
    room_id: "abc",
    count: 2,
    messages: [
      { user_id: 100, user_name: "Alice", content: "hello from the socket", time: Date.UTC(2026, 0, 1) },
      { user_id: 100, user_name: "Alice", content: "typed in game", time: Date.UTC(2026, 0, 1) },
    ],
  });
  await a.ok("room.set_tournament", { room_id: "abc", tournament: true });
  equal((await a.fail("room.chat_send", { room_id: "abc", user_id: 100, content: "x" })).code, "INVALID_STATE");
  await u.close();
});

Deno.test("openuds room.history, rounds and round after a played round", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  const alice = await u.c.h.login(100);
  await alice.createRoom("abc");
  deepEqual(await a.ok("room.history", { room_id: "abc" }), { room_id: "abc", source: "memory", rounds: [] });
  await alice.selectChart(7);
  await alice.requestStart();
  await alice.played(100001);
  const uuid = u.c.h.server.core.rooms.get("abc")!.rounds[0]!.uuid;
  const history = await a.ok("room.history", { room_id: "abc", limit: 5 }) as {
    rounds: { round_id: string; results: { user_id: number; score: number; user_name: string }[] }[];
  };
  equal(history.rounds[0]!.round_id, uuid);
  deepEqual(history.rounds[0]!.results.map((r) => [r.user_id, r.user_name, r.score]), [[100, "Alice", 1000000]]);
  const rounds = await a.ok("room.rounds", { room_id: "abc" }) as { rounds: unknown[] };
  deepEqual(rounds.rounds, [{
    round_id: uuid,
    chart_id: 7,
    chart_name: "Lucky Seven",
    started_at: Date.UTC(2026, 0, 1),
    finished_at: Date.UTC(2026, 0, 1),
    results: 1,
    aborted: 0,
  }]);
  const round = await a.ok("room.round", { room_id: "abc", round_id: uuid }) as Record<string, unknown>;
  equal(round.round_id, uuid);
  equal(round.source, "memory");
  equal((await a.fail("room.round", { room_id: "abc", round_id: "nope" })).code, "INVALID_ARGUMENT");
  equal((await a.fail("room.history", { room_id: "abc", limit: 0 })).code, "INVALID_ARGUMENT");
  await u.close();
});
