/**
 * `/rooms/listen` of the monitor proxy (spec 1 §3, §6, profile P) over real
 * HTTP: one `create_room` per existing room first, then live events in the
 * order the game server produced them, keep-alive comments; the stream ends
 * when the game server is lost and new ones get 503 until it is back; a
 * client that stops reading is cut off without slowing anyone else; the
 * number of streams is bounded.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { type SseFrame, SseReader } from "./support/http.ts";
import { startProxyHarness } from "./support/proxy.ts";
import { waitUntil } from "./support/describe.ts";

const RETRY = { event: "message", data: null };

function roomData(host: number, users: number[], more: Record<string, unknown> = {}) {
  return { host, users, lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [], ...more };
}

Deno.test("proxy /rooms/listen: a create_room per existing room, then live events in order", async () => {
  const h = await startProxyHarness();
  try {
    const alice = await h.login(100);
    const bob = await h.login(200);
    const carol = await h.login(300);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    await carol.createRoom("xyz");
    const res = await fetch(`${h.url}/rooms/listen`);
    equal(res.status, 200);
    equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
    equal(res.headers.get("cache-control"), "no-cache");
    equal(res.headers.get("x-accel-buffering"), "no");
    const sse = new SseReader(res.body!);
    deepEqual(await sse.take(3), [
      RETRY,
      { event: "create_room", data: { room: "abc", data: roomData(100, [100, 200]) } },
      { event: "create_room", data: { room: "xyz", data: roomData(300, [300]) } },
    ]);
    await alice.lockRoom(true);
    await alice.selectChart(1);
    await alice.requestStart();
    await bob.ready();
    await alice.played(100001);
    await bob.played(200001);
    await bob.leaveRoom();
    await alice.lockRoom(false);
    await carol.leaveRoom();
    await carol.joinRoom("abc");
    const frames = await sse.take(10);
    deepEqual(frames.map((f) => "event" in f ? [f.event, summary(f)] : ["comment"]), [
      ["update_room", { lock: true }],
      ["update_room", { chart: 1 }],
      ["update_room", { state: "WAITING_FOR_READY" }],
      ["update_room", { state: "PLAYING" }],
      ["new_round", 1],
      ["update_room", { state: "SELECTING_CHART" }],
      ["leave_room", 200],
      ["update_room", { lock: false }],
      // Carol leaves her own room (which ends with her) and joins abc.
      ["leave_room", 300],
      ["join_room", 300],
    ]);
    await sse.cancel();
  } finally {
    await h.close();
  }
});

/** The interesting part of an event for order assertions. */
function summary(f: SseFrame): unknown {
  if (!("event" in f)) return null;
  const d = f.data as { data?: unknown; user?: number; round?: { chart: number } };
  if (f.event === "update_room") return d.data;
  if (f.event === "new_round") return d.round?.chart;
  return d.user ?? null;
}

Deno.test("proxy /rooms/listen: keep-alive comments while nothing happens; HEAD answers headers only", async () => {
  const h = await startProxyHarness({ deps: { fanout: { keepAliveMs: 500 } } });
  try {
    const sse = new SseReader((await fetch(`${h.url}/rooms/listen`)).body!);
    deepEqual(await sse.next(), RETRY);
    await h.advance(500);
    deepEqual(await sse.next(), { comment: "keep-alive" });
    await h.advance(500);
    deepEqual(await sse.next(), { comment: "keep-alive" });
    await sse.cancel();
    const head = await fetch(`${h.url}/rooms/listen`, { method: "HEAD" });
    equal(head.status, 200);
    equal(head.headers.get("content-type"), "text/event-stream; charset=utf-8");
    equal(await head.text(), "");
    await waitUntil(() => h.proxy.fanout.size === 0, "streams released");
  } finally {
    await h.close();
  }
});

Deno.test("proxy /rooms/listen: the stream ends when the game server is lost; new ones get 503 with the reason", async () => {
  const h = await startProxyHarness();
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    const sse = new SseReader((await fetch(`${h.url}/rooms/listen`)).body!);
    equal((await sse.take(2)).length, 2);
    await h.server.shutdown();
    equal(await sse.next(), null);
    const res = await fetch(`${h.url}/rooms/listen`);
    equal(res.status, 503);
    const body = await res.json();
    ok(body.error.startsWith("game server unavailable: "), body.error);
  } finally {
    await h.close({ allowViolations: true });
  }
});

Deno.test("proxy /rooms/listen: a client that stops reading is cut off; a reading client gets everything", async () => {
  const h = await startProxyHarness({ deps: { fanout: { capacity: 64, graceMs: 1000 } } });
  try {
    // A client that sends its request and never reads a byte.
    const stuck = await Deno.connect({ hostname: "127.0.0.1", port: h.proxy.port });
    await stuck.write(new TextEncoder().encode("GET /rooms/listen HTTP/1.1\r\nHost: x\r\n\r\n"));
    await waitUntil(() => h.proxy.fanout.size === 1, "stuck client subscribed");
    const fast = new SseReader((await fetch(`${h.url}/rooms/listen`)).body!);
    deepEqual(await fast.next(), RETRY);
    // 16 MB of events: far more than the socket buffers hold for the stuck client.
    const filler = "x".repeat(16 * 1024);
    for (let i = 0; i < 1000; i++) {
      h.proxy.fanout.publish([{ name: "update_room", data: { room: `r${i}`, data: { filler } } }]);
      const frame = await fast.next(10_000) as { event: string; data: { room: string } };
      equal(frame.data.room, `r${i}`);
    }
    equal(h.proxy.fanout.stats.cutOff, 1);
    // Cut off, given the grace time to read its lag notice, then released.
    await h.advance(1000);
    await waitUntil(() => h.proxy.fanout.size === 1, "stuck client released");
    await fast.cancel();
    stuck.close();
  } finally {
    await h.close();
  }
});

Deno.test("proxy /rooms/listen: streams are bounded (503 when full)", async () => {
  const h = await startProxyHarness({ deps: { fanout: { maxSubscribers: 1 } } });
  try {
    const first = new SseReader((await fetch(`${h.url}/rooms/listen`)).body!);
    await first.next();
    const second = await fetch(`${h.url}/rooms/listen`);
    equal(second.status, 503);
    deepEqual(await second.json(), { error: "too many open streams", code: 503 });
    await first.cancel();
    await waitUntil(() => h.proxy.fanout.size === 0, "released");
    const third = await fetch(`${h.url}/rooms/listen`);
    equal(third.status, 200);
    await third.body!.cancel();
  } finally {
    await h.close();
  }
});
