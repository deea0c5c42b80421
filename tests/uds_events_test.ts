/**
 * OpenUDS events and streams over a real socket (spec 3 §4.5, §6.4):
 * subscribe/unsubscribe with wildcards, every event with its documented
 * fields, touches/judges/logs streams with a room filter, the heartbeat, and
 * the per-connection buffer that tells a slow reader what it missed.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { TouchFrame } from "../src/protocol/mod.ts";
import { startUdsHarness } from "./support/uds.ts";
import type { Frame } from "./support/uds.ts";

const T0 = Date.UTC(2026, 0, 1);

function ev(type: string) {
  return (f: Frame) => f.type === "event" && f.event_type === type;
}

Deno.test("openuds subscribe/unsubscribe answer with the active patterns; bad patterns are refused", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  await a.send({ type: "subscribe", id: 1, event_types: ["room.*", "user.online"] });
  deepEqual(await a.next(), { type: "subscribed", id: 1, active: ["room.*", "user.online"] });
  await a.send({ type: "command", id: 2, command: "subscribe", params: { event_types: ["*", "room.*"] } });
  deepEqual(await a.next(), { type: "subscribed", id: 2, active: ["room.*", "user.online", "*"] });
  await a.send({ type: "unsubscribe", id: 3, event_types: ["*", "round.*"] });
  deepEqual(await a.next(), { type: "unsubscribed", id: 3, removed: ["*"], active: ["room.*", "user.online"] });
  await a.send({ type: "subscribe", id: 4, event_types: ["room.exploded"] });
  const bad = await a.next();
  equal((bad.error as { code: string }).code, "INVALID_ARGUMENT");
  await a.send({ type: "subscribe", id: 5, event_types: [] });
  equal(((await a.next()).error as { code: string }).code, "INVALID_ARGUMENT");
  await a.send({ type: "ping", id: 6 });
  deepEqual(await a.next(), { type: "pong", id: 6 });
  await a.send({ command: "ping", id: 7 });
  deepEqual(await a.next(), { type: "pong", id: 7 });
  await u.close();
});

Deno.test("openuds events carry the documented fields; room.* matches every room event", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  await a.send({ type: "subscribe", id: 1, event_types: ["room.*", "round.*", "user.*", "chat.message"] });
  await a.next((f) => f.type === "subscribed");
  const alice = await u.c.h.login(100);
  const online = await a.next(ev("user.online"));
  deepEqual(online, {
    type: "event",
    event_type: "user.online",
    sequence: online.sequence,
    timestamp: T0,
    data: { user_id: 100, name: "Alice", language: "en-US" },
  });
  await alice.createRoom("abc");
  const created = await a.next(ev("room.created"));
  const uuid = u.c.h.server.core.rooms.get("abc")!.uuid;
  deepEqual(created.data, {
    room_id: "abc",
    uuid,
    hidden: false,
    created_by: 100,
    data: { host: 100, users: [100], lock: false, cycle: false, chart: null, state: "SelectingChart", rounds: [] },
  });
  const bob = await u.c.h.login(200);
  await bob.joinRoom("abc");
  deepEqual((await a.next(ev("room.joined"))).data, {
    room_id: "abc",
    user_id: 200,
    monitor: false,
    name: "Bob",
    uuid,
  });
  await alice.lockRoom(true);
  deepEqual((await a.next(ev("room.updated"))).data, { room_id: "abc", changes: { locked: true }, uuid });
  await bob.chat("gg");
  deepEqual((await a.next(ev("chat.message"))).data, { room_id: "abc", user_id: 200, content: "gg" });
  await alice.selectChart(7);
  await a.next(ev("room.updated"));
  await alice.requestStart();
  await bob.ready();
  const started = await a.next(ev("round.started"));
  const round = (started.data as { round_id: string }).round_id;
  deepEqual(started.data, {
    room_id: "abc",
    round_id: round,
    chart_id: 7,
    chart_name: "Lucky Seven",
    players: [100, 200],
  });
  await alice.played(100001);
  const scored = await a.next(ev("round.scored"));
  deepEqual(scored.data, {
    room_id: "abc",
    user_id: 100,
    score: 1000000,
    chart_id: 7,
    round_id: round,
    record_id: 100001,
    accuracy: 1,
    perfect: 928,
    good: 0,
    bad: 0,
    miss: 0,
    max_combo: 928,
    full_combo: true,
    std: (scored.data as { std: number }).std,
  });
  await bob.abort();
  const completed = await a.next(ev("round.completed"));
  const data = completed.data as Record<string, unknown>;
  equal(data.room_id, "abc");
  equal(data.round_id, round);
  deepEqual((data.results as { user_id: number; score: number }[]).map((r) => [r.user_id, r.score]), [[100, 1000000]]);
  deepEqual(data.aborted, [200]);
  await bob.leaveRoom();
  deepEqual((await a.next(ev("room.left"))).data, {
    room_id: "abc",
    user_id: 200,
    reason: "leave",
    monitor: false,
    name: "Bob",
    uuid,
  });
  await bob.close();
  deepEqual((await a.next(ev("user.offline"))).data, { user_id: 200, name: "Bob" });
  // Sequences increase in the order events happened.
  await alice.leaveRoom();
  deepEqual((await a.next(ev("room.deleted"))).data, { room_id: "abc", uuid });
  await u.close();
});

Deno.test("openuds: unsubscribed kinds are not sent; other clients keep their own subscriptions", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  const b = await u.client();
  await a.send({ type: "subscribe", event_types: ["user.online"] });
  await b.send({ type: "subscribe", event_types: ["room.created"] });
  await a.next((f) => f.type === "subscribed");
  await b.next((f) => f.type === "subscribed");
  const alice = await u.c.h.login(100);
  await alice.createRoom("abc");
  await a.next(ev("user.online"));
  await b.next(ev("room.created"));
  await a.send({ type: "unsubscribe", event_types: ["user.online"] });
  await a.next((f) => f.type === "unsubscribed");
  await u.c.h.login(200);
  await a.ok("admin.id_list");
  deepEqual(a.all("event"), [], "nothing after unsubscribing");
  deepEqual(b.all("event"), []);
  await u.close();
});

Deno.test("openuds streams: touches and judges with a room filter, logs with a room filter", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  await a.send({ type: "subscribe_stream", id: 1, stream: "touches", room_id: "abc" });
  deepEqual(await a.next(), { type: "stream_subscribed", id: 1, stream: "touches", room_id: "abc" });
  await a.send({ type: "command", id: 2, command: "subscribe_stream", params: { stream: "judges" } });
  deepEqual(await a.next(), { type: "stream_subscribed", id: 2, stream: "judges", room_id: null });
  await a.send({ type: "subscribe_stream", id: 3, stream: "video" });
  equal(((await a.next()).error as { code: string }).code, "INVALID_ARGUMENT");
  const alice = await u.c.h.login(100);
  const mon = await u.c.h.login(9);
  const carol = await u.c.h.login(300);
  const dave = await u.c.h.login(9 + 1);
  await alice.createRoom("abc");
  await mon.joinRoom("abc", true);
  await carol.createRoom("xyz");
  await dave.joinRoom("xyz", true);
  for (const c of [alice, carol]) {
    await c.selectChart(7);
    await c.requestStart();
  }
  await mon.ready();
  await dave.ready();
  const frames: TouchFrame[] = [{ time: 1.5, points: [[0, { x: 0.5, y: -0.25 }]] }];
  carol.touches(frames);
  alice.touches(frames);
  alice.judges([{ time: 2, line_id: 3, note_id: 7, judgement: "Good" }]);
  carol.judges([{ time: 3, line_id: 1, note_id: 2, judgement: "Miss" }]);
  const round = (u.c.h.server.core.rooms.get("abc")!.phase as { round: string }).round;
  const touch = await a.next((f) => f.type === "stream" && f.stream === "touches");
  deepEqual(touch, {
    type: "stream",
    stream: "touches",
    user_id: 100,
    sequence: touch.sequence,
    room: "abc",
    round,
    timestamp: T0,
    frames: [{ time: 1.5, points: [[0, { x: 0.5, y: -0.25 }]] }],
  });
  // Two clients' connections: the server may read them in either order.
  const judges = [await a.next((f) => f.stream === "judges"), await a.next((f) => f.stream === "judges")]
    .sort((x, y) => (x.user_id as number) - (y.user_id as number));
  deepEqual(judges.map((j) => [j.user_id, j.room]), [[100, "abc"], [300, "xyz"]]);
  deepEqual(judges[0]!.events, [{ time: 2, line_id: 3, note_id: 7, judgement: "Good" }]);
  ok((judges[0]!.sequence as number) > (touch.sequence as number), "alice's judges came after her touches");
  await a.ok("admin.id_list");
  deepEqual(a.all("stream"), [], "carol's touches in xyz were filtered out");

  await a.send({ type: "unsubscribe_stream", id: 4, stream: "judges" });
  deepEqual(await a.next(), { type: "stream_unsubscribed", id: 4, stream: "judges" });
  alice.judges([{ time: 4, line_id: 3, note_id: 8, judgement: "Perfect" }]);

  await a.send({ type: "subscribe_stream", id: 5, stream: "logs", room_id: "abc" });
  await a.next((f) => f.type === "stream_subscribed");
  const log = u.c.h.server.ctx.log;
  log.info("about xyz", { room: "xyz" });
  log.warn("about abc", { room: "abc" });
  const line = await a.next((f) => f.stream === "logs");
  deepEqual({ ...line, line: undefined }, {
    type: "stream",
    stream: "logs",
    sequence: line.sequence,
    timestamp: line.timestamp,
    level: "warn",
    msg: "about abc",
    room: "abc",
    line: undefined,
  });
  ok((line.line as string).includes("about abc"));
  await a.ok("admin.id_list");
  deepEqual(a.all("stream"), [], "no judges after unsubscribing, no logs of other rooms");
  await u.close();
});

Deno.test("openuds server.heartbeat every heartbeat_interval_secs to every authenticated client", async () => {
  const u = await startUdsHarness({ openuds: { heartbeat_interval_secs: 60 } });
  const a = await u.client();
  const pending = await u.connect();
  await u.c.h.login(100);
  await u.c.h.advance(59_999);
  deepEqual(a.all("event"), []);
  await u.c.h.advance(1);
  const beat = await a.next(ev("server.heartbeat"));
  deepEqual(beat, {
    type: "event",
    event_type: "server.heartbeat",
    sequence: null,
    timestamp: T0 + 60_000,
    data: { users: 1, rooms: 0, sessions: 1, uptime_secs: 60, openuds_connections: 1 },
  });
  await u.c.h.advance(60_000);
  await a.next(ev("server.heartbeat"));
  deepEqual(
    pending.frames,
    [{ type: "auth_error", code: "UNAUTHORIZED", message: "authentication timed out" }],
    "no heartbeat before authentication",
  );
  await u.close();
});

Deno.test("openuds event buffer: a reader that falls behind gets a lagged frame with what it missed", async () => {
  const u = await startUdsHarness({ openuds: { event_buffer_size: 64 } });
  const a = await u.client();
  await a.send({ type: "subscribe", event_types: ["chat.message"] });
  await a.next((f) => f.type === "subscribed");
  const N = 1000;
  // Published in one go: the connection's writer cannot run in between, so its buffer overflows.
  for (let i = 0; i < N; i++) {
    u.c.h.bus.publish({ kind: "chat.message", room: "abc", uuid: "u", hidden: false, user: 1, content: `m${i}` });
  }
  const lagged = await a.next((f) => f.type === "lagged", "lagged");
  const isChat = (f: Frame) => f.type === "event" && f.event_type === "chat.message";
  for (let i = 0; i < 200 && a.frames.filter(isChat).length < 65; i++) await a.ok("admin.id_list");
  const got = a.frames.filter(isChat).map((f) => (f.data as { content: string }).content);
  // The one event the writer had taken, then a full buffer of the newest; the rest reported as missed.
  deepEqual(lagged, { type: "lagged", source: "events", skipped: N - 65 });
  equal(got.length, 65);
  deepEqual([got[0], got[1], got.at(-1)], ["m0", `m${N - 64}`, `m${N - 1}`]);
  u.c.h.bus.publish({ kind: "chat.message", room: "abc", uuid: "u", hidden: false, user: 1, content: "after" });
  await a.next((f) => isChat(f) && (f.data as { content: string }).content === "after");
  await u.close();
});
