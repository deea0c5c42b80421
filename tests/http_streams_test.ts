/**
 * SSE streams in process: `/api/events`, `/rooms/listen` and the profile R
 * `/api/rooms/listen`, with real game clients producing the events; order,
 * hidden rooms, keep-alives on the manual clock, lag and resource release.
 */
import { deepEqual, equal } from "node:assert/strict";
import type { EventBus } from "../src/events/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { SseReader, startHttpHarness } from "./support/http.ts";

function lockEvent(bus: EventBus, room: string, lock: boolean): void {
  bus.publish({
    kind: "room.updated",
    room,
    uuid: "u",
    hidden: false,
    changes: { host: null, lock, cycle: null, chart: null, state: null },
  });
}

Deno.test("http /api/events: ready, then player events of visible rooms only", async () => {
  const h = await startHttpHarness();
  try {
    const res = await h.http.request("/api/events");
    equal(res.status, 200);
    equal(res.headers.get("cache-control"), "no-cache");
    const sse = new SseReader(res.body!);
    deepEqual(await sse.next(), { event: "ready", data: { stream: "events", version: "0.1.0" } });
    const alice = await h.login(100);
    const bob = await h.login(200);
    const mon = await h.login(9);
    await alice.createRoom("abc");
    await (await h.login(300)).createRoom("-hidden");
    await bob.joinRoom("abc");
    await mon.joinRoom("abc", true);
    await alice.lockRoom(true);
    await mon.leaveRoom();
    await bob.leaveRoom();
    await alice.leaveRoom();
    deepEqual(await sse.take(6), [
      {
        event: "create_room",
        data: {
          room: "abc",
          data: {
            host: 100,
            users: [100],
            lock: false,
            cycle: false,
            chart: null,
            state: "SELECTING_CHART",
            rounds: [],
          },
        },
      },
      { event: "join_room", data: { room: "abc", user: 200 } },
      { event: "update_room", data: { room: "abc", data: { lock: true } } },
      { event: "leave_room", data: { room: "abc", user: 200 } },
      { event: "leave_room", data: { room: "abc", user: 100 } },
      { event: "delete_room", data: { room: "abc" } },
    ]);
    await sse.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("http /api/events: a round gives update_room, start_round, player_score and new_round", async () => {
  const h = await startHttpHarness();
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    await alice.selectChart(1);
    const sse = new SseReader((await h.http.request("/api/events")).body!);
    equal((await sse.next() as { event: string }).event, "ready");
    await alice.requestStart();
    await alice.waitFor("ChangeState", (e) => e.state.type === "Playing");
    await alice.played(100001);
    const frames = await sse.take(6);
    deepEqual(frames.map((f) => "event" in f ? f.event : f.comment), [
      "update_room",
      "update_room",
      "start_round",
      "player_score",
      "new_round",
      "update_room",
    ]);
    deepEqual(frames.slice(0, 3).map((f) => "event" in f && f.data), [
      { room: "abc", data: { state: "WAITING_FOR_READY" } },
      { room: "abc", data: { state: "PLAYING" } },
      { room: "abc" },
    ]);
    const score = frames[3] as { data: { room: string; record: { id: number; player: number } } };
    deepEqual([score.data.room, score.data.record.id, score.data.record.player], ["abc", 100001, 100]);
    const round = frames[4] as { data: { room: string; round: { chart: number; records: { id: number }[] } } };
    deepEqual([round.data.room, round.data.round.chart, round.data.round.records.map((r) => r.id)], [
      "abc",
      1,
      [100001],
    ]);
    deepEqual(frames[5], { event: "update_room", data: { room: "abc", data: { state: "SELECTING_CHART" } } });
    await sse.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("http /rooms/listen: ready, one update_room snapshot per visible room, then live events", async () => {
  const h = await startHttpHarness();
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    await (await h.login(200)).createRoom("-hidden");
    await (await h.login(300)).createRoom("xyz");
    const res = await h.http.request("/rooms/listen");
    equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
    equal(res.headers.get("cache-control"), "no-cache");
    equal(res.headers.get("x-accel-buffering"), "no");
    const sse = new SseReader(res.body!);
    const data = (host: number) => ({
      host,
      users: [host],
      lock: false,
      cycle: false,
      chart: null,
      state: "SELECTING_CHART",
      rounds: [],
    });
    deepEqual(await sse.take(3), [
      { event: "ready", data: { stream: "rooms", rooms: 2 } },
      { event: "update_room", data: { room: "abc", data: data(100) } },
      { event: "update_room", data: { room: "xyz", data: data(300) } },
    ]);
    await alice.cycleRoom(true);
    deepEqual(await sse.next(), { event: "update_room", data: { room: "abc", data: { cycle: true } } });
    await sse.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("http streams send keep-alives every 15 s of the injected clock", async () => {
  const h = await startHttpHarness();
  try {
    const events = new SseReader((await h.http.request("/api/events")).body!);
    const basic = new SseReader((await h.http.request("/api/rooms/listen")).body!);
    equal((await events.next() as { event: string }).event, "ready");
    await h.advance(14_999);
    lockEvent(h.bus, "abc", true);
    deepEqual(await events.next(), { event: "update_room", data: { room: "abc", data: { lock: true } } });
    deepEqual(await basic.next(), { event: "update_room", data: { room: "abc", data: { lock: true } } });
    await h.advance(1);
    deepEqual(await events.next(), { comment: "keep-alive" });
    deepEqual(await basic.next(), { event: "keepalive", data: {} });
    await h.advance(15_000);
    deepEqual(await events.next(), { comment: "keep-alive" });
    await events.cancel();
    await basic.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("http a lagging SSE consumer gets stream_lagged {skipped} and goes on", async () => {
  const h = await startHttpHarness({ http: { streamCapacity: 4 } });
  try {
    const sse = new SseReader((await h.http.request("/api/events")).body!);
    equal((await sse.next() as { event: string }).event, "ready");
    // The consumer reads nothing while ten events are published: the game does not wait.
    for (let i = 0; i < 10; i++) lockEvent(h.bus, `r${i}`, true);
    const frames = await sse.take(6);
    deepEqual(
      frames.map((f) => "event" in f && (f.event === "stream_lagged" ? f.data : (f.data as { room: string }).room)),
      [
        "r0",
        { skipped: 5 },
        "r6",
        "r7",
        "r8",
        "r9",
      ],
    );
    lockEvent(h.bus, "after", false);
    deepEqual(await sse.next(), { event: "update_room", data: { room: "after", data: { lock: false } } });
    await sse.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("http closed streams free their subscriptions; the stream limit answers 503", async () => {
  const h = await startHttpHarness({ http: { maxStreams: 2 } });
  try {
    const before = h.bus.subscriberCount;
    const a = new SseReader((await h.http.request("/api/events")).body!);
    const b = new SseReader((await h.http.request("/rooms/listen")).body!);
    equal(h.bus.subscriberCount, before + 2);
    const third = await h.json("/api/rooms/listen");
    deepEqual([third.status, third.body], [503, { error: "too many open streams", code: 503 }]);
    await a.cancel();
    await waitUntil(() => h.bus.subscriberCount === before + 1, "subscription released");
    const c = await h.http.request("/api/rooms/listen");
    equal(c.status, 200);
    // HEAD answers the headers only and opens nothing.
    const head = await h.http.request("/api/events", { method: "HEAD" });
    deepEqual([head.status, head.headers.get("content-type"), h.http.context.tracker.size], [
      200,
      "text/event-stream; charset=utf-8",
      2,
    ]);
    // Shutdown ends the remaining streams: readers see the end of the body.
    await h.http.closeStreams();
    deepEqual(await b.next(), { event: "ready", data: { stream: "rooms", rooms: 0 } });
    equal(await b.next(), null);
    equal(h.bus.subscriberCount, before);
    equal(h.http.context.tracker.size, 0);
    await c.body?.cancel();
  } finally {
    await h.close();
  }
});
