/**
 * Room JSON routes of profiles S and R against a server with real TCP
 * clients; errors, hidden rooms and the `info` collision rule.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { startHttpHarness } from "./support/http.ts";
import { waitUntil } from "./support/describe.ts";

const EMPTY_ROOM = (host: number, users: number[]) => ({
  host,
  users,
  lock: false,
  cycle: false,
  chart: null,
  state: "SELECTING_CHART",
  rounds: [],
});

Deno.test("http S lists visible rooms flat with player_count and total_players", async () => {
  const h = await startHttpHarness();
  try {
    const alice = await h.login(100);
    const bob = await h.login(200);
    const carol = await h.login(300);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    await carol.createRoom("-secret");
    await alice.lockRoom(true);
    const { status, body, headers } = await h.json("/api/rooms");
    equal(status, 200);
    match(headers.get("content-type") ?? "", /application\/json/);
    deepEqual(body, {
      rooms: [{ name: "abc", ...EMPTY_ROOM(100, [100, 200]), lock: true }],
      player_count: 3,
      total_players: 3,
    });
    deepEqual((await h.json("/api/rooms/abc")).body, { ...EMPTY_ROOM(100, [100, 200]), lock: true });
  } finally {
    await h.close();
  }
});

Deno.test("http S detail, user_name and players: errors use {error, code}", async (t) => {
  const h = await startHttpHarness();
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    await (await h.login(200)).createRoom("-hidden");
    const cases: [string, number, unknown][] = [
      ["/api/rooms/nope", 404, { error: "room not found: nope", code: 404 }],
      ["/api/rooms/-hidden", 404, { error: "room not found: -hidden", code: 404 }],
      ["/api/rooms/bad%20name", 400, { error: 'invalid room name "bad name"', code: 400 }],
      ["/api/rooms/info/bad%20name", 400, { error: 'invalid room name "bad name"', code: 400 }],
      ["/api/rooms/info/-hidden", 404, { error: "room not found: -hidden", code: 404 }],
      ["/api/rooms/abcdefghijklmnopqrstuvwxyz", 400, {
        error: 'invalid room name "abcdefghijklmnopqrstuvwxyz"',
        code: 400,
      }],
      ["/api/user_name/7", 404, { error: "user 7 not found", code: 404 }],
      ["/api/user_name/x1", 400, { error: 'invalid user id "x1"', code: 400 }],
      ["/api/user_name/99999999999", 400, { error: 'invalid user id "99999999999"', code: 400 }],
      ["/api/players/count", 200, { count: 2 }],
      ["/api/players/all", 200, { total: 2, players: [100, 200] }],
      ["/api/nothing/here", 404, { error: "route not found: /api/nothing/here", code: 404 }],
    ];
    for (const [path, status, body] of cases) {
      await t.step(path, async () => {
        const res = await h.json(path);
        equal(res.status, status);
        deepEqual(res.body, body);
      });
    }
    const res = await h.http.request("/api/user_name/100");
    equal(res.status, 200);
    match(res.headers.get("content-type") ?? "", /^text\/plain/);
    equal(await res.text(), "Alice");
  } finally {
    await h.close();
  }
});

Deno.test("http R info, info/<name> and user/<id> include playing_users", async () => {
  const h = await startHttpHarness();
  try {
    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    await alice.selectChart(1);
    await alice.requestStart();
    await bob.ready();
    await alice.waitFor("ChangeState", (e) => e.state.type === "Playing");
    const expected = {
      name: "abc",
      data: { ...EMPTY_ROOM(100, [100, 200]), chart: 1, state: "PLAYING", playing_users: [100, 200] },
    };
    deepEqual((await h.json("/api/rooms/info")).body, [expected]);
    deepEqual((await h.json("/api/rooms/info/abc")).body, expected);
    deepEqual((await h.json("/api/rooms/user/200")).body, expected);
    deepEqual((await h.json("/api/rooms/user/300")).body, { error: "user 300 not found", code: 404 });
    deepEqual((await h.json("/api/rooms/user/abc")).body, { error: 'invalid user id "abc"', code: 400 });
    deepEqual((await h.json("/api/rooms/info/zzz")).body, { error: "room not found: zzz", code: 404 });
    const carol = await h.login(300);
    deepEqual((await h.json("/api/rooms/user/300")).body, { error: "user 300 is not in a room", code: 404 });
    await carol.createRoom("-mine");
    deepEqual((await h.json("/api/rooms/user/300")).body, { error: "user 300 is not in a room", code: 404 });
  } finally {
    await h.close();
  }
});

Deno.test("http rooms named info and listen: R paths win, data served by /api/rooms/info/<name>", async () => {
  const h = await startHttpHarness();
  try {
    await (await h.login(100)).createRoom("info");
    await (await h.login(200)).createRoom("listen");
    await (await h.login(300)).createRoom("user");
    const list = await h.json("/api/rooms/info");
    equal(list.status, 200);
    deepEqual((list.body as { name: string }[]).map((r) => r.name), ["info", "listen", "user"]);
    deepEqual((await h.json("/api/rooms/info/info")).body, {
      name: "info",
      data: { ...EMPTY_ROOM(100, [100]), playing_users: [] },
    });
    deepEqual((await h.json("/api/rooms/info/listen")).body, {
      name: "listen",
      data: { ...EMPTY_ROOM(200, [200]), playing_users: [] },
    });
    // `user` is not reserved on its own: only /api/rooms/user/<id> is.
    deepEqual((await h.json("/api/rooms/user")).body, EMPTY_ROOM(300, [300]));
    const stream = await h.http.request("/api/rooms/listen");
    equal(stream.headers.get("content-type"), "text/event-stream; charset=utf-8");
    await stream.body?.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("http rounds and records appear in JSON with SCREAMING_SNAKE_CASE states", async () => {
  const h = await startHttpHarness();
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    await alice.selectChart(1);
    await alice.requestStart();
    await alice.waitFor("ChangeState", (e) => e.state.type === "Playing");
    const record = h.dev.state.addRecord({
      player: 100,
      chart: 1,
      score: 900000,
      accuracy: 0.75,
      perfect: 90,
      good: 8,
      bad: 1,
      miss: 1,
      max_combo: 70,
      full_combo: false,
      std: 12.5,
      std_score: 0.5,
    });
    await alice.played(record.id);
    await waitUntil(() => h.server.core.rooms.get("abc")?.rounds.length === 1, "round settled");
    const body = (await h.json("/api/rooms/abc")).body as { state: string; rounds: unknown[] };
    equal(body.state, "SELECTING_CHART");
    deepEqual(body.rounds, [{
      chart: 1,
      records: [{
        id: record.id,
        player: 100,
        score: 900000,
        perfect: 90,
        good: 8,
        bad: 1,
        miss: 1,
        max_combo: 70,
        accuracy: 0.75,
        full_combo: false,
        std: 12.5,
        std_score: 0.5,
      }],
    }]);
  } finally {
    await h.close();
  }
});

Deno.test("http health: live, ready, and 503 while degraded", async () => {
  let degraded = false;
  const h = await startHttpHarness({
    health: () => degraded ? { ready: false, issues: ["supervisor is degraded"] } : { ready: true, issues: [] },
  });
  try {
    const live = await h.http.request("/health/live");
    equal(live.status, 200);
    equal(await live.text(), "live");
    deepEqual(await h.json("/health/ready").then((r) => [r.status, r.body]), [200, { status: "ready" }]);
    degraded = true;
    deepEqual(await h.json("/health/ready").then((r) => [r.status, r.body]), [503, {
      status: "not ready",
      issues: ["supervisor is degraded"],
    }]);
  } finally {
    await h.close();
  }
});
