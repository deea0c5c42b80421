/**
 * The monitor proxy's room endpoints (spec 1 §4.1, profile P) against game
 * servers on loopback: shapes of spec 1 §2.1, errors, the on-demand
 * `QueryRoomInfo` (at most once a second, shared by concurrent requests),
 * 503 with a reason — never a hang — while the game server is missing,
 * silent or refuses the key, and reconnection after the game server (the
 * wired app, as `deno task start` runs it) restarts.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { connect } from "../src/client/mod.ts";
import { startProxy } from "../src/proxy/mod.ts";
import { devToken, serveDevApi } from "../src/upstream/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { SeededRandom } from "../src/util/random.ts";
import { memoryLogHub } from "../src/util/log.ts";
import { appConfig, startTestApp } from "./support/app.ts";
import { freePort } from "./support/child_server.ts";
import { waitUntil } from "./support/describe.ts";
import { SseReader } from "./support/http.ts";
import { PROXY_SECRET, startProxyHarness, testProxyOptions } from "./support/proxy.ts";

Deno.test("proxy /rooms/info, /rooms/info/{id}, /rooms/user/{id}: shapes of spec 1 §2.1", async () => {
  const h = await startProxyHarness();
  try {
    deepEqual((await h.json("/rooms/info")).body, { total: 0, rooms: [] });
    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    await alice.selectChart(1);
    await alice.requestStart();
    await bob.ready();
    await alice.played(100001);
    await bob.played(200001);
    const data = {
      host: 100,
      users: [100, 200],
      lock: false,
      cycle: false,
      chart: 1,
      state: "SELECTING_CHART",
      rounds: [{
        chart: 1,
        records: [100, 200].map((player) => {
          const r = h.dev.state.record(player * 1000 + 1)!;
          return {
            id: r.id,
            player,
            score: r.score,
            perfect: r.perfect,
            good: r.good,
            bad: r.bad,
            miss: r.miss,
            max_combo: r.max_combo,
            accuracy: Math.fround(r.accuracy),
            full_combo: r.full_combo,
            std: Math.fround(r.std ?? 0),
            std_score: Math.fround(r.std_score ?? 0),
          };
        }),
      }],
    };
    const list = await h.json("/rooms/info");
    equal(list.status, 200);
    equal(list.headers.get("content-type"), "application/json");
    deepEqual(list.body, { total: 1, rooms: [{ name: "abc", data }] });
    deepEqual((await h.json("/rooms/info/abc")).body, { name: "abc", data });
    deepEqual((await h.json("/rooms/user/200")).body, { name: "abc", data });
    const none = await h.json("/rooms/user/300");
    equal(none.status, 200);
    equal(none.body, null);
  } finally {
    await h.close();
  }
});

Deno.test("proxy room endpoints: 404 for an unknown room, 400 for malformed ids", async () => {
  const h = await startProxyHarness();
  try {
    const cases: [string, number, unknown][] = [
      ["/rooms/info/nope", 404, { error: "room not found: nope", code: 404 }],
      ["/rooms/info/bad%20id", 400, { error: 'invalid room id: "bad id"', code: 400 }],
      [`/rooms/info/${"x".repeat(21)}`, 400, { error: `invalid room id: "${"x".repeat(21)}"`, code: 400 }],
      ["/rooms/user/abc", 400, { error: "invalid user id: expected a 32-bit integer", code: 400 }],
      ["/rooms/user/99999999999", 400, { error: "invalid user id: expected a 32-bit integer", code: 400 }],
      ["/rooms/nothing", 404, { error: "route not found: /rooms/nothing", code: 404 }],
    ];
    for (const [path, status, body] of cases) {
      const res = await h.json(path);
      deepEqual([path, res.status, res.body], [path, status, body]);
    }
  } finally {
    await h.close();
  }
});

Deno.test("proxy sends QueryRoomInfo at most once a second, on demand, shared by concurrent requests", async () => {
  const h = await startProxyHarness();
  try {
    const link = h.proxy.link;
    equal(link.counts.queries, 1, "one query right after logging in");
    for (let i = 0; i < 3; i++) equal((await h.json("/rooms/info")).status, 200);
    equal(link.counts.queries, 1, "younger than a second: served from the picture kept by pushes");
    await h.advance(1000);
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => h.json("/rooms/info")));
    deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200]);
    equal(link.counts.queries, 2, "five requests, one query");
    await h.advance(999);
    await h.json("/rooms/user/1");
    equal(link.counts.queries, 2);
    await h.advance(1);
    await h.json("/rooms/info/x");
    equal(link.counts.queries, 3);
    // Without requests, nothing is polled.
    await h.advance(2000);
    equal(link.counts.queries, 3);
  } finally {
    await h.close();
  }
});

Deno.test("proxy answers 503 with the reason while the game server is gone, and never hangs", async () => {
  const h = await startProxyHarness();
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    await h.server.shutdown();
    await waitUntil(() => h.proxy.link.status.status === "down", "link down");
    const lost = await h.json("/rooms/info");
    equal(lost.status, 503);
    equal(lost.headers.get("retry-after"), "2");
    const body = lost.body as { error: string; code: number };
    equal(body.code, 503);
    ok(body.error.startsWith("game server unavailable: lost the game server"), body.error);
    for (const path of ["/rooms/info/abc", "/rooms/user/100", "/rooms/listen"]) {
      equal((await h.json(path)).status, 503, path);
    }
    // The reconnection attempt fails (nothing listens): the reason says so.
    await h.advance(500);
    await waitUntil(() => /cannot connect to the game server at 127\.0\.0\.1:\d+/.test(reason(h.proxy.link.status)));
    const refused = (await h.json("/rooms/info")).body as { error: string };
    ok(/^game server unavailable: cannot connect to the game server at 127\.0\.0\.1:\d+: /.test(refused.error));
  } finally {
    await h.close({ allowViolations: true });
  }
});

function reason(status: { status: string; reason?: string }): string {
  return status.reason ?? "";
}

Deno.test("proxy: a game server that never answers is reported (503 meanwhile, then the login timeout)", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  const clock = new ManualClock();
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-proxy-test-" });
  const proxy = await startProxy(testProxyOptions(listener.addr.port, dataDir), {
    clock,
    random: new SeededRandom(1),
    logs: memoryLogHub(),
  });
  try {
    await waitUntil(() => held.length === 1, "the proxy connected");
    const res = await proxy.request("/rooms/info");
    equal(res.status, 503);
    deepEqual(await res.json(), { error: "game server unavailable: not connected yet", code: 503 });
    clock.advance(3000);
    await waitUntil(() => /no Authenticate reply within 3000 ms/.test(reason(proxy.link.status)));
    const later = await proxy.request("/rooms/info/abc");
    ok(/^game server unavailable: lost the game server: .*no Authenticate reply/.test((await later.json()).error));
  } finally {
    await proxy.close();
    listener.close();
    for (const c of held) c.close();
    await accepting;
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("proxy: a game server with another secret refuses the room monitor; the reason names the setting", async () => {
  const h = await startProxyHarness({
    config: { service_secret_key: "another-secret-0123456789" },
    waitForLink: false,
  });
  try {
    await waitUntil(() => /secret key mismatch/.test(reason(h.proxy.link.status)), "refused");
    const res = await h.json("/rooms/info");
    equal(res.status, 503);
    equal(
      (res.body as { error: string }).error,
      "game server unavailable: the game server refused the room monitor: secret key mismatch " +
        "(SERVICE_SECRET_KEY differs from the game server's service_secret_key)",
    );
  } finally {
    await h.close();
  }
});

Deno.test("proxy reconnects after the game server (the wired app, as deno task start runs it) restarts", async () => {
  const dev = serveDevApi({ port: 0 });
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-proxy-app-" });
  const port = await freePort();
  const config = appConfig(`${dataDir}/server`, dev.url, { port, service_secret_key: PROXY_SECRET });
  let app = startTestApp(config);
  await app.ready;
  const proxy = await startProxy(testProxyOptions(port, `${dataDir}/proxy`, { apiBase: dev.url }), {
    logs: memoryLogHub(),
    // Quick retries keep the test short; the back-off itself is the same code.
    timing: { initialBackoffMs: 100, maxBackoffMs: 400 },
  });
  try {
    await waitUntil(() => proxy.link.status.status === "up", "link up", 5000);
    const alice = await connect({ port, pingIntervalMs: 0 });
    await alice.authenticate(devToken(100));
    await alice.createRoom("before");
    await waitUntil(() => proxy.link.cache.size === 1, "room seen");
    const listen = await fetch(`${proxy.url}/rooms/listen`);
    const events = new SseReader(listen.body!);
    deepEqual(await events.next(), RETRY_FRAME);
    deepEqual(await events.next(), { event: "create_room", data: roomJson("before", 100) });
    await alice.close();
    await app.stop();
    // The stream ends with the link; REST says why.
    await waitUntil(() => proxy.link.status.status === "down", "link down", 5000);
    equal(await events.next(), null);
    equal((await fetch(`${proxy.url}/rooms/info`).then((r) => r.json())).code, 503);

    app = startTestApp(config);
    await app.ready;
    await waitUntil(() => proxy.link.status.status === "up", "link up again", 10_000);
    const bob = await connect({ port, pingIntervalMs: 0 });
    await bob.authenticate(devToken(200));
    await bob.createRoom("after");
    await waitUntil(() => proxy.link.cache.size === 1, "new room seen");
    const list = await fetch(`${proxy.url}/rooms/info`).then((r) => r.json());
    deepEqual(list.rooms.map((r: { name: string }) => r.name), ["after"]);
    const again = new SseReader((await fetch(`${proxy.url}/rooms/listen`)).body!);
    deepEqual(await again.next(), RETRY_FRAME);
    deepEqual(await again.next(), { event: "create_room", data: roomJson("after", 200) });
    await again.cancel();
    await bob.close();
    ok(proxy.link.counts.connects >= 2);
  } finally {
    await proxy.close();
    await app.stop();
    await dev.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

/** `retry: 2000` as the test reader sees it (a block with no event and no data). */
const RETRY_FRAME = { event: "message", data: null };

function roomJson(room: string, host: number) {
  return {
    room,
    data: { host, users: [host], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] },
  };
}
