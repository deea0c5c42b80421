/**
 * Plugin extension points (spec 1 §4.3 rules 1–3) exercised by an
 * in-process test plugin until the WASM host lands: routes and SSE streams
 * registered at run time, replaced, removed, and `/api/rooms/listen`
 * provided by a plugin.
 */
import { deepEqual, equal, throws } from "node:assert/strict";
import type { HttpApp } from "../src/http/mod.ts";
import { SseReader, startHttpHarness } from "./support/http.ts";

/** A stand-in plugin: what a WASM plugin does through `http.register_route` / `sse.register_stream`. */
function loadTestPlugin(http: HttpApp): void {
  http.routes.register("api/hello/<name>", (req) => ({
    ok: true,
    value: { hello: req.named.name, params: req.params, method: req.method, query: req.query, body: req.body ?? null },
  }), "test-plugin");
  http.routes.register("/api/fail/{code}", (req) => ({
    ok: false,
    error: `failed with ${req.params[0]}`,
    status: Number(req.params[0]),
  }), "test-plugin");
  http.routes.register("/api/throw", () => {
    throw new Error("boom");
  }, "test-plugin");
  http.streams.register({
    path: "api/plugin/rooms",
    events: ["CreateRoom", "leave_room"],
    owner: "test-plugin",
    translate: ({ event_type, data }) =>
      data.room === "skip" ? null : { event: `plugin_${event_type}`, data: { from: "plugin", ...data } },
  });
}

Deno.test("http plugin routes: registered at run time, any method, params, query and JSON body", async (t) => {
  const h = await startHttpHarness();
  try {
    deepEqual((await h.json("/api/hello/bob")).body, { error: "route not found: /api/hello/bob", code: 404 });
    loadTestPlugin(h.http);
    await t.step("GET with params and query", async () => {
      const res = await h.json("/api/hello/b%20ob?x=1");
      deepEqual([res.status, res.body], [200, {
        hello: "b ob",
        params: ["b ob"],
        method: "GET",
        query: { x: "1" },
        body: null,
      }]);
    });
    await t.step("POST with a JSON body", async () => {
      const res = await h.json("/api/hello/al", { method: "POST", body: JSON.stringify({ a: [1] }) });
      deepEqual((res.body as { body: unknown; method: string }).body, { a: [1] });
    });
    await t.step("malformed JSON body", async () => {
      const res = await h.json("/api/hello/al", { method: "POST", body: "{" });
      deepEqual([res.status, res.body], [400, { error: "invalid JSON body", code: 400 }]);
    });
    await t.step("error reply with its status; thrown error is 500 handler failed", async () => {
      deepEqual((await h.json("/api/fail/409")).body, { error: "failed with 409", code: 409 });
      deepEqual((await h.json("/api/fail/200")).body, { error: "failed with 200", code: 500 });
      deepEqual((await h.json("/api/throw")).body, { error: "handler failed", code: 500 });
    });
    await t.step("registering the same path replaces the handler, no restart", async () => {
      const pattern = h.http.routes.register("/api/hello/:who", (req) => ({ ok: true, value: `hi ${req.named.who}` }));
      equal(pattern, "/api/hello/:who");
      equal(h.http.routes.list().filter((r) => r.pattern === "/api/hello/:who").length, 1);
      deepEqual((await h.json("/api/hello/x")).body, "hi x");
    });
    await t.step("paths a built-in route answers are refused, not silently shadowed", async () => {
      throws(() => h.http.routes.register("/api/rooms", () => ({ ok: true, value: "plugin" })), {
        name: "RangeError",
        message: 'Cannot register route "/api/rooms": the built-in route "/api/rooms" answers that path first',
      });
      throws(
        () => h.http.routes.register("/api/rooms/leaderboard", () => ({ ok: true, value: "plugin" })),
        /the built-in route "\/api\/rooms\/:name" answers that path first/,
      );
      throws(
        () => h.http.streams.register({ path: "/api/events", events: [], translate: () => null }),
        /Cannot register stream "\/api\/events": the built-in route "\/api\/events"/,
      );
      deepEqual((await h.json("/api/rooms")).body, { rooms: [], player_count: 0, total_players: 0 });
      deepEqual((await h.json("/api/rooms/leaderboard")).body, { error: "room not found: leaderboard", code: 404 });
      const events = await h.http.request("/api/events", { method: "HEAD" });
      equal(events.headers.get("content-type"), "text/event-stream; charset=utf-8");
    });
    await t.step("a pattern only partly answered by built-ins is served where they do not answer", async () => {
      h.http.routes.register("/api/rooms/:room/leaderboard", (req) => ({ ok: true, value: req.named.room }));
      deepEqual((await h.json("/api/rooms/abc/leaderboard")).body, "abc");
      // `/api/rooms/info/<name>` stays the profile R lookup (docs/http.md collision rule).
      deepEqual((await h.json("/api/rooms/info/leaderboard")).body, {
        error: "room not found: leaderboard",
        code: 404,
      });
      equal(h.http.routes.unregister("/api/rooms/:room/leaderboard"), true);
    });
    await t.step("unloading the plugin removes its routes", async () => {
      equal(h.http.routes.unregisterOwner("test-plugin"), 2);
      equal((await h.json("/api/fail/409")).status, 404);
    });
    await t.step("request bodies are limited", async () => {
      const res = await h.json("/api/hello/x", { method: "POST", body: "x".repeat(70_000) });
      deepEqual([res.status, res.body], [413, { error: "request body too large", code: 413 }]);
    });
    throws(() => h.http.routes.register("", () => ({ ok: true, value: 1 })), RangeError);
    throws(() => h.http.routes.register("/a?b", () => ({ ok: true, value: 1 })), RangeError);
  } finally {
    await h.close();
  }
});

Deno.test("http plugin SSE stream: ready first, type filter, translate null skips, keep-alive", async () => {
  const h = await startHttpHarness();
  try {
    loadTestPlugin(h.http);
    const sse = new SseReader((await h.http.request("/api/plugin/rooms")).body!);
    deepEqual(await sse.next(), { event: "ready", data: { stream: "api/plugin/rooms", version: "0.1.0" } });
    const alice = await h.login(100);
    await (await h.login(200)).createRoom("skip");
    await alice.createRoom("abc");
    await alice.lockRoom(true); // update_room is filtered out before translate
    await alice.leaveRoom();
    deepEqual(await sse.take(2), [
      {
        event: "plugin_create_room",
        data: {
          from: "plugin",
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
      { event: "plugin_leave_room", data: { from: "plugin", room: "abc", user: 100 } },
    ]);
    await h.advance(15_000);
    deepEqual(await sse.next(), { comment: "keep-alive" });
    // Unregistering stops new connections; the open one keeps running until it closes.
    equal(h.http.streams.unregisterOwner("test-plugin"), 1);
    deepEqual((await h.json("/api/plugin/rooms")).body, { error: "route not found: /api/plugin/rooms", code: 404 });
    await sse.cancel();
    throws(() => h.http.streams.register({ path: "/x", events: ["nope"], translate: () => null }), RangeError);
  } finally {
    await h.close();
  }
});

Deno.test("http /api/rooms/listen can be provided by a plugin; a throwing translate skips the event", async () => {
  const h = await startHttpHarness();
  try {
    const before = new SseReader((await h.http.request("/api/rooms/listen")).body!);
    h.http.streams.register({
      path: "/api/rooms/listen",
      events: [],
      owner: "hsn-plugin",
      translate: ({ event_type, data }) => {
        if (data.room === "bad") throw new Error("cannot translate");
        return { event: event_type, data: { name: data.room, kind: event_type } };
      },
    });
    const after = new SseReader((await h.http.request("/api/rooms/listen")).body!);
    deepEqual(await after.next(), { event: "ready", data: { stream: "api/rooms/listen", version: "0.1.0" } });
    await (await h.login(200)).createRoom("bad");
    await (await h.login(100)).createRoom("abc");
    deepEqual(await after.next(), { event: "create_room", data: { name: "abc", kind: "create_room" } });
    // The connection opened before the replacement still runs the host's stream.
    deepEqual(await before.next(), {
      event: "create_room",
      data: {
        room: "bad",
        data: { host: 200, users: [200], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] },
      },
    });
    await before.cancel();
    await after.cancel();
    equal(h.http.streams.unregister("/api/rooms/listen"), true);
    deepEqual((await h.json("/api/rooms/listen")).body, {
      error: "SSE stream not found: /api/rooms/listen",
      code: 404,
    });
  } finally {
    await h.close();
  }
});

Deno.test("http plugin SSE stream: an asynchronous translate keeps the order; a stuck or failing one skips its event", async () => {
  const h = await startHttpHarness();
  try {
    let releaseSlow!: () => void;
    const slowDone = new Promise<void>((resolve) => (releaseSlow = resolve));
    let calls = 0;
    h.http.streams.register({
      path: "/api/plugin/async",
      events: ["create_room"],
      owner: "remote-plugin",
      // As a plugin in another process answers: later, and not in the order asked.
      translate: async ({ event_type, data }) => {
        calls++;
        if (data.room === "slow") await slowDone;
        if (data.room === "stuck") await new Promise(() => {});
        if (data.room === "broken") throw new Error("plugin crashed");
        return { event: `remote_${event_type}`, data: { room: data.room } };
      },
    });
    const sse = new SseReader((await h.http.request("/api/plugin/async")).body!);
    deepEqual(await sse.next(), { event: "ready", data: { stream: "api/plugin/async", version: "0.1.0" } });
    await (await h.login(100)).createRoom("slow");
    await (await h.login(200)).createRoom("fast");
    const first = sse.next();
    releaseSlow();
    deepEqual(await first, { event: "remote_create_room", data: { room: "slow" } });
    deepEqual(
      await sse.next(),
      { event: "remote_create_room", data: { room: "fast" } },
      "the fast one waited its turn",
    );
    await (await h.login(300)).createRoom("stuck");
    await (await h.login(400)).createRoom("broken");
    await (await h.login(500)).createRoom("after");
    const next = sse.next();
    while (calls < 3) await new Promise((resolve) => setTimeout(resolve, 0));
    await h.advance(2000); // the stuck translation times out: its event is skipped, the stream goes on
    deepEqual(await next, { event: "remote_create_room", data: { room: "after" } });
    equal(calls, 5);
    await sse.cancel();
  } finally {
    await h.close();
  }
});
