/**
 * Account backend: the profile R room routes and stream (spec 1 §4.2, §6)
 * fed by a hand-driven room source — shapes, 404s, event order, keep-alive
 * events on the manual clock, a slow client's bounded queue, and the link
 * going down.
 */
import { deepEqual, equal } from "node:assert/strict";
import type { RecordJson, RoomDataJson } from "../src/accounts/room_source.ts";
import { ManualRoomSource, startTestAccounts, TextSseReader } from "./support/accounts.ts";
import { settle } from "./support/harness.ts";

function data(host: number, users: number[], more: Partial<RoomDataJson> = {}): RoomDataJson {
  return { host, users, lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [], ...more };
}

const RECORD: RecordJson = {
  id: 100001,
  player: 100,
  score: 1000000,
  perfect: 100,
  good: 0,
  bad: 0,
  miss: 0,
  max_combo: 100,
  accuracy: 1,
  full_combo: true,
  std: 0,
  std_score: 0,
};

Deno.test("profile R: list, room and user lookups with {name, data} and playing_users; 404 and 400 in the envelope", async () => {
  const t = await startTestAccounts();
  const source = t.source as ManualRoomSource;
  try {
    source.emit({
      type: "snapshot",
      rooms: new Map([
        ["abc", { data: data(100, [100, 200], { state: "PLAYING", chart: 7 }), playing: [200] }],
        ["solo", { data: data(300, [300]), playing: [] }],
      ]),
    });
    const c = t.client();
    const list = await c.get("/api/rooms/info");
    deepEqual(list.body, [
      { name: "abc", data: { ...data(100, [100, 200], { state: "PLAYING", chart: 7 }), playing_users: [200] } },
      { name: "solo", data: { ...data(300, [300]), playing_users: [] } },
    ]);
    deepEqual((await c.get("/api/rooms/info/solo")).body, {
      name: "solo",
      data: { ...data(300, [300]), playing_users: [] },
    });
    deepEqual((await c.get("/api/rooms/user/200")).body, (list.body as unknown[])[0]);
    deepEqual((await c.get("/api/rooms/info/nope")).body, {
      error: "room not found: nope",
      code: "room_not_found",
      status: 404,
    });
    equal((await c.get("/api/rooms/user/999")).status, 404);
    equal(((await c.get("/api/rooms/user/999")).body as { code: string }).code, "user_not_in_room");
    equal((await c.get("/api/rooms/user/x1")).status, 400);
    equal((await c.get("/api/rooms/info/bad%20name")).status, 400);
    deepEqual((await c.get("/health/ready")).body, { status: "ready", source: "manual" });
    source.emit({ type: "disconnected", reason: "test" });
    source.connected = false;
    deepEqual((await c.get("/api/rooms/info")).body, [], "rooms are unknown while the link is down");
    equal((await c.get("/health/ready")).status, 503);
  } finally {
    await t.close();
  }
});

Deno.test("profile R stream: room events, start_round, player_score and keepalive events, in order", async () => {
  const t = await startTestAccounts();
  const source = t.source as ManualRoomSource;
  try {
    const res = await t.client().raw("GET", "/api/rooms/listen");
    equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
    equal(res.headers.get("cache-control"), "no-cache");
    const sse = new TextSseReader(res.body!);
    source.emit({ type: "created", room: "abc", creator: 100, data: data(100, [100]) });
    source.emit({ type: "joined", room: "abc", user: 200 });
    source.emit({ type: "updated", room: "abc", changes: { chart: 7 } });
    source.emit({ type: "updated", room: "abc", changes: { state: "PLAYING" } });
    source.emit({ type: "round_started", room: "abc", players: [100, 200] });
    deepEqual((await t.client().get("/api/rooms/info/abc")).body, {
      name: "abc",
      data: { ...data(100, [100, 200], { chart: 7, state: "PLAYING" }), playing_users: [100, 200] },
    });
    source.emit({ type: "scored", room: "abc", record: RECORD });
    equal(
      ((await t.client().get("/api/rooms/info/abc")).body as { data: { playing_users: number[] } }).data
        .playing_users.join(),
      "200",
    );
    source.emit({ type: "round_completed", room: "abc", round: { chart: 7, records: [RECORD] } });
    source.emit({ type: "updated", room: "abc", changes: { state: "SELECTING_CHART" } });
    source.emit({ type: "left", room: "abc", user: 200 });
    const frames = [];
    for (let i = 0; i < 8; i++) frames.push(await sse.next());
    deepEqual(frames, [
      { event: "create_room", data: JSON.stringify({ room: "abc", data: data(100, [100]) }) },
      { event: "join_room", data: '{"room":"abc","user":200}' },
      { event: "update_room", data: '{"room":"abc","data":{"chart":7}}' },
      { event: "update_room", data: '{"room":"abc","data":{"state":"PLAYING"}}' },
      { event: "start_round", data: '{"room":"abc"}' },
      { event: "player_score", data: JSON.stringify({ room: "abc", record: RECORD }) },
      { event: "update_room", data: '{"room":"abc","data":{"state":"SELECTING_CHART"}}' },
      { event: "leave_room", data: '{"room":"abc","user":200}' },
    ]);
    const rounds = ((await t.client().get("/api/rooms/info/abc")).body as { data: { rounds: unknown[] } }).data.rounds;
    deepEqual(rounds, [{ chart: 7, records: [RECORD] }]);
    t.clock.advance(15_000);
    deepEqual(await sse.next(), { event: "keepalive", data: "{}" });
    await sse.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("profile R stream: a client that does not read keeps at most 256 events and is told how many it lost", async () => {
  const t = await startTestAccounts();
  const source = t.source as ManualRoomSource;
  try {
    source.emit({ type: "created", room: "abc", creator: 100, data: data(100, [100]) });
    const slow = await t.client().raw("GET", "/api/rooms/listen");
    const other = new TextSseReader((await t.client().raw("GET", "/api/rooms/listen")).body!);
    equal(t.service.ctx.listeners.size, 2);
    for (let i = 0; i < 1000; i++) source.emit({ type: "updated", room: "abc", changes: { chart: i } });
    const sse = new TextSseReader(slow.body!);
    deepEqual(await sse.next(), { event: "stream_lagged", data: '{"skipped":744}' });
    for (let i = 744; i < 1000; i++) {
      deepEqual(await sse.next(), { event: "update_room", data: `{"room":"abc","data":{"chart":${i}}}` });
    }
    // Each client has its own queue: the other one lost the same oldest events, not more, not fewer.
    deepEqual(await other.next(), { event: "stream_lagged", data: '{"skipped":744}' });
    await sse.cancel();
    await other.cancel();
    await settle();
    equal(t.service.ctx.listeners.size, 0, "closed streams are forgotten");
  } finally {
    await t.close();
  }
});

Deno.test("profile R stream: one client address stops at its share with 429; another address still gets a stream", async () => {
  const t = await startTestAccounts({ maxStreams: 64 });
  const readers: TextSseReader[] = [];
  try {
    const share = t.service.ctx.listeners.perClient;
    for (let i = 0; i < share; i++) {
      const res = await t.client(`2001:db8:0:7::${i + 1}`).raw("GET", "/api/rooms/listen");
      equal(res.status, 200);
      readers.push(new TextSseReader(res.body!));
    }
    const over = await t.client("2001:db8:0:7:ffff::1").raw("GET", "/api/rooms/listen");
    deepEqual([over.status, await over.json()], [429, {
      error: "too many open streams from this address",
      code: "rate_limited",
      status: 429,
    }]);
    const other = await t.client("198.51.100.9").raw("GET", "/api/rooms/listen");
    equal(other.status, 200);
    readers.push(new TextSseReader(other.body!));
  } finally {
    for (const r of readers) await r.cancel();
    await t.close();
  }
});
