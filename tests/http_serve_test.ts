/**
 * The HTTP service on real sockets: JSON and SSE over TCP, `/api/ws`,
 * the trusted `X-Forwarded-For` listener, CORS, and shutdown with open
 * streams.
 */
import { deepEqual, equal } from "node:assert/strict";
import type { EventBus } from "../src/events/mod.ts";
import { trustedListenerWarning } from "../src/http/serve.ts";
import { waitUntil } from "./support/describe.ts";
import { ADMIN_PASSWORD, SseReader, startHttpHarness } from "./support/http.ts";
import { TestSocket } from "./support/ws.ts";

function lockEvent(bus: EventBus, room: string, hidden = false): void {
  bus.publish({
    kind: "room.updated",
    room,
    uuid: "u",
    hidden,
    changes: { host: null, lock: true, cycle: null, chart: null, state: null },
  });
}

Deno.test("http over TCP: JSON, SSE with live events, and close ends open streams", async () => {
  const h = await startHttpHarness({ listen: true });
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    const list = await fetch(`${h.url}/api/rooms`);
    deepEqual((await list.json()).rooms.map((r: { name: string }) => r.name), ["abc"]);
    const res = await fetch(`${h.url}/api/events`);
    equal(res.headers.get("x-accel-buffering"), "no");
    const sse = new SseReader(res.body!);
    equal((await sse.next() as { event: string }).event, "ready");
    await alice.lockRoom(true);
    deepEqual(await sse.next(), { event: "update_room", data: { room: "abc", data: { lock: true } } });
    await h.service!.close();
    equal(await sse.next(), null);
  } finally {
    await h.close();
  }
});

Deno.test("http /api/ws: ready, events as binary JSON frames, lag notice, no hidden rooms", async () => {
  const h = await startHttpHarness({ listen: true, http: { streamCapacity: 4 } });
  try {
    const plain = await fetch(`${h.url}/api/ws`);
    deepEqual([plain.status, await plain.json()], [426, { error: "expected a WebSocket upgrade", code: 426 }]);
    const before = h.bus.subscriberCount;
    const ws = await TestSocket.open(`${h.url.replace("http", "ws")}/api/ws`);
    await ws.waitFor(1, "ready");
    lockEvent(h.bus, "-hidden", true);
    for (let i = 0; i < 10; i++) lockEvent(h.bus, `r${i}`);
    await ws.waitFor(7, "events");
    const frames = ws.json() as { event_type: string; data: string }[];
    deepEqual(frames[0], { event_type: "ready", data: JSON.stringify({ stream: "ws", version: "0.1.0" }) });
    deepEqual(frames.slice(1).map((f) => [f.event_type, JSON.parse(f.data)]), [
      ["update_room", { room: "r0", data: { lock: true } }],
      ["stream_lagged", { skipped: 5 }],
      ["update_room", { room: "r6", data: { lock: true } }],
      ["update_room", { room: "r7", data: { lock: true } }],
      ["update_room", { room: "r8", data: { lock: true } }],
      ["update_room", { room: "r9", data: { lock: true } }],
    ]);
    equal(h.bus.subscriberCount, before + 1);
    await ws.close();
    await waitUntil(() => h.bus.subscriberCount === before, "subscription released");
  } finally {
    await h.close();
  }
});

Deno.test("http /api/ws sockets are closed by the service's close()", async () => {
  const h = await startHttpHarness({ listen: true });
  try {
    const ws = await TestSocket.open(`${h.url.replace("http", "ws")}/api/ws`);
    await ws.waitFor(1, "ready");
    await h.service!.close();
    await ws.closed;
    equal(ws.closeEvent?.code, 1001);
  } finally {
    await h.close();
  }
});

Deno.test("http trusted listener takes the client address from X-Forwarded-For; the main one ignores it", async () => {
  const h = await startHttpHarness({ listen: true, trusted: true });
  try {
    const trusted = `http://127.0.0.1:${h.service!.trustedPort}`;
    const login = (base: string, forwardedFor: string) =>
      fetch(`${base}/admin/api/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
        body: JSON.stringify({ password: "wrong" }),
      }).then(async (r) => [r.status, (await r.json()).error]);
    // Five failures from 203.0.113.7 (as the proxy reports it) exhaust that address only.
    for (let i = 0; i < 5; i++) deepEqual(await login(trusted, "198.51.100.1, 203.0.113.7"), [401, "wrong password"]);
    deepEqual(await login(trusted, "203.0.113.7"), [429, "too many login attempts"]);
    deepEqual(await login(trusted, "203.0.113.8"), [401, "wrong password"]);
    // The main listener ignores the header: its peer is 127.0.0.1, which has attempts left.
    deepEqual(await login(h.url, "203.0.113.7"), [401, "wrong password"]);
    const ok = await fetch(`${trusted}/admin/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https" },
      body: JSON.stringify({ password: ADMIN_PASSWORD }),
    });
    equal(ok.status, 200);
    await ok.body?.cancel();
    equal(/;\s*Secure/i.test(ok.headers.get("set-cookie") ?? ""), true);
    // Bound to loopback: no warning about who can reach the trusted port.
    equal(h.logs.history().some((r) => r.msg.startsWith("TRUSTED HTTP LISTENER")), false);
  } finally {
    await h.close();
  }
});

Deno.test("http trusted listener warns loudly when bound to an address others can reach", async (t) => {
  for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"]) {
    await t.step(`${host}: quiet`, () => equal(trustedListenerWarning(host, 8080), null));
  }
  for (const host of ["0.0.0.0", "::", "10.0.0.5", "192.168.1.2", "proxy.internal", "::ffff:10.0.0.1"]) {
    await t.step(`${host}: warns`, () => {
      const warning = trustedListenerWarning(host, 8080) ?? "";
      equal(warning.startsWith("TRUSTED HTTP LISTENER ON A NON-LOOPBACK ADDRESS: port 8080 on " + host), true);
      equal(warning.includes("reverse proxy only"), true);
    });
  }
});

Deno.test("http CORS: same origin only by default; configured origins get CORS headers, the admin panel never", async () => {
  const plain = await startHttpHarness();
  try {
    const res = await plain.http.request("/api/rooms", { headers: { origin: "https://example.org" } });
    equal(res.headers.get("access-control-allow-origin"), null);
    await res.body?.cancel();
  } finally {
    await plain.close();
  }
  const h = await startHttpHarness({ http: { corsOrigins: ["https://monitor.example"] } });
  try {
    const allowed = await h.http.request("/api/rooms", { headers: { origin: "https://monitor.example" } });
    equal(allowed.headers.get("access-control-allow-origin"), "https://monitor.example");
    await allowed.body?.cancel();
    const other = await h.http.request("/api/rooms", { headers: { origin: "https://evil.example" } });
    equal(other.headers.get("access-control-allow-origin"), null);
    await other.body?.cancel();
    const preflight = await h.http.request("/api/rooms", {
      method: "OPTIONS",
      headers: { origin: "https://monitor.example", "access-control-request-method": "GET" },
    });
    equal(preflight.status, 204);
    const admin = await h.http.request("/admin/api/session", { headers: { origin: "https://monitor.example" } });
    equal(admin.headers.get("access-control-allow-origin"), null);
    await admin.body?.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("http a client that disconnects from an SSE stream releases its subscription", async () => {
  const h = await startHttpHarness({ listen: true });
  try {
    const before = h.bus.subscriberCount;
    const controller = new AbortController();
    const res = await fetch(`${h.url}/rooms/listen`, { signal: controller.signal });
    const sse = new SseReader(res.body!);
    equal((await sse.next() as { event: string }).event, "ready");
    equal(h.bus.subscriberCount, before + 1);
    controller.abort();
    await sse.cancel();
    await waitUntil(() => h.bus.subscriberCount === before && h.http.context.tracker.size === 0, "stream released");
  } finally {
    await h.close();
  }
});
