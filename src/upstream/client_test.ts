import { deepEqual, equal, ok } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { SeededRandom } from "../util/random.ts";
import { Upstream } from "./client.ts";
import { devRecordId } from "./dev_records.ts";
import { devToken } from "./dev_accounts.ts";
import { UpstreamError } from "./errors.ts";
import { drive, rejection, rig } from "./test_support.ts";
import type { FetchLike } from "./transport.ts";

function asUpstreamError(e: unknown): UpstreamError {
  ok(e instanceof UpstreamError, `expected UpstreamError, got ${e}`);
  return e;
}

Deno.test("Upstream me returns the account behind a dev token", async () => {
  const { clock, api, up } = rig();
  const token = api.state.addUser({ id: 321, name: "Yuki", language: "ja-JP" });
  deepEqual(await drive(clock, up.me(token)), { id: 321, name: "Yuki", language: "ja-JP" });
  deepEqual(await drive(clock, up.me(devToken(200, "zh-CN"))), { id: 200, name: "Bob", language: "zh-CN" });
  equal(api.state.requests[0]?.bearer, true);
});

Deno.test("Upstream user returns a public profile; a malformed avatar or rks is dropped; 404 is an http error", async () => {
  const { clock, api, up } = rig();
  api.state.addUser({ id: 321, name: "Yuki" });
  const profile = await drive(clock, up.user(321));
  equal(profile.name, "Yuki");
  equal(profile.avatar, "http://dev.invalid/avatars/321.svg");
  ok(profile.rks !== null && profile.rks >= 0 && profile.rks <= 16);
  api.state.setFault("user", { body: { id: 5, name: "Five", avatar: 3, rks: "high" }, times: 1 });
  deepEqual(await drive(clock, up.user(5)), { id: 5, name: "Five", avatar: null, rks: null });
  const e = asUpstreamError(await rejection(drive(clock, up.user(0))));
  equal(e.message, "Cannot fetch game user 0: HTTP 404 Not Found");
  equal(up.stats().user.failures, 1);
});

Deno.test("Upstream profile reads the display fields of /me and tolerates their absence", async () => {
  const { clock, api, up } = rig();
  deepEqual(await drive(clock, up.profile(devToken(200))), {
    id: 200,
    name: "Bob",
    avatar: null,
    rks: 0,
    joined: "2024-01-01T00:00:00Z",
    lastLogin: new Date(clock.now()).toISOString(),
  });
  api.state.setFault("me", { body: { id: 7, name: "Seven", avatar: "https://a/7.png", rks: 15.5, joined: 3 } });
  deepEqual(await drive(clock, up.profile(devToken(7))), {
    id: 7,
    name: "Seven",
    avatar: "https://a/7.png",
    rks: 15.5,
    joined: null,
    lastLogin: null,
  });
  api.state.setFault("me", { status: 401 });
  equal(asUpstreamError(await rejection(drive(clock, up.profile(devToken(7))))).status, 401);
});

Deno.test("Upstream chart returns metadata with the archive URL", async () => {
  const { clock, up } = rig();
  const chart = await drive(clock, up.chart(42));
  equal(chart.id, 42);
  equal(chart.name, "The Answer");
  equal(chart.file, "http://dev.invalid/files/chart-42.zip");
  equal(typeof chart.charter, "string");
  equal(typeof chart.difficulty, "number");
  equal(typeof chart.chartUpdated, "string");
  const unrated = await drive(clock, up.chart(30));
  equal(unrated.rating, null);
});

Deno.test("Upstream chart drops optional fields of the wrong type and keeps going", async () => {
  const { clock, api, up } = rig();
  api.state.setFault("chart", { body: { id: 5, name: "Five", charter: 12, rating: "high", file: 3 } });
  deepEqual(await drive(clock, up.chart(5)), { id: 5, name: "Five", file: null });
});

Deno.test("Upstream chart 404 reads 'Cannot fetch chart 42: HTTP 404 Not Found' and is not retried", async () => {
  const { clock, api, up } = rig();
  api.state.setFault("chart", { status: 404 });
  const e = asUpstreamError(await rejection(drive(clock, up.chart(42))));
  equal(e.message, "Cannot fetch chart 42: HTTP 404 Not Found");
  equal(e.kind, "http");
  equal(e.status, 404);
  equal(e.endpoint, "chart");
  equal(e.url, "http://dev.invalid/chart/42");
  equal(api.state.requests.length, 1);
  const unknown = asUpstreamError(await rejection(drive(clock, up.chart(1_000_000))));
  equal(unknown.status, 404);
});

Deno.test("Upstream record accepts null or absent std and std_score", async () => {
  const { clock, api, up } = rig();
  const id = devRecordId(100, 10);
  const r = await drive(clock, up.record(id));
  equal(r.player, 100);
  equal(r.std, null);
  equal(r.std_score, null);
  const { std: _a, std_score: _b, ...rest } = r;
  api.state.setFault("record", { body: rest, times: 1 });
  const absent = await drive(clock, up.record(id));
  equal(absent.std, null);
  const full = await drive(clock, up.record(devRecordId(100, 1)));
  equal(full.score, 1_000_000);
  equal(full.accuracy, 1);
  equal(full.full_combo, true);
  equal(typeof full.std, "number");
});

Deno.test("Upstream record with a wrong shape fails as invalid_response without retry", async (t) => {
  const cases: [string, unknown, string][] = [
    [
      "wrong type",
      { ...sampleRecord(), player: "x" },
      "Cannot fetch record 7: invalid response: player: expected number",
    ],
    [
      "missing key",
      { ...sampleRecord(), full_combo: undefined },
      "Cannot fetch record 7: invalid response: full_combo: expected boolean",
    ],
    ["not i32", { ...sampleRecord(), score: 2 ** 40 }, "Cannot fetch record 7: invalid response: score: Too big"],
  ];
  for (const [name, body, message] of cases) {
    await t.step(name, async () => {
      const { clock, api, up } = rig();
      api.state.setFault("record", { body });
      const e = asUpstreamError(await rejection(drive(clock, up.record(7))));
      equal(e.kind, "invalid_response");
      ok(e.message.startsWith(message), e.message);
      equal(api.state.requests.length, 1);
    });
  }
  await t.step("not JSON", async () => {
    const { clock, api, up } = rig();
    api.state.setFault("record", { hook: () => new Response("<html>oops</html>") });
    const e = asUpstreamError(await rejection(drive(clock, up.record(7))));
    equal(e.message, "Cannot fetch record 7: invalid response: not JSON");
  });
});

function sampleRecord() {
  return {
    id: 7,
    player: 1,
    score: 1,
    perfect: 1,
    good: 0,
    bad: 0,
    miss: 0,
    max_combo: 1,
    accuracy: 1,
    full_combo: true,
    std: null,
    std_score: null,
  };
}

Deno.test("Upstream me 401 is not retried and never shows the token", async () => {
  const { clock, api, up } = rig();
  const token = "not-a-real-token-0123456789abcdef";
  const e = asUpstreamError(await rejection(drive(clock, up.me(token))));
  equal(e.message, "Cannot fetch user info: HTTP 401 Unauthorized");
  equal(api.state.requests.length, 1);
  equal(up.stats().me.retries, 0);
  equal(up.stats().me.failures, 1);
  ok(!JSON.stringify(up.stats()).includes(token));
  ok(!JSON.stringify(api.state.requests).includes(token));
  ok(!e.message.includes(token) && !e.url.includes(token));
});

Deno.test("Upstream retries a 500 and then succeeds", async () => {
  const { clock, api, up } = rig();
  api.state.setFault("me", { status: 500, times: 2 });
  const user = await drive(clock, up.me(devToken(100)));
  equal(user.name, "Alice");
  deepEqual(api.state.requests.map((r) => r.status), [500, 500, 200]);
  const s = up.stats().me;
  equal(s.calls, 1);
  equal(s.retries, 2);
  equal(s.failures, 0);
  equal(s.lastError, "Cannot fetch user info: HTTP 500 Internal Server Error");
  ok(s.latencyMsMax > 0 && s.latencyMsMax === s.latencyMsSum);
});

Deno.test("Upstream retries 408 and 429 but not other 4xx", async (t) => {
  for (const [status, attempts] of [[408, 2], [429, 2], [400, 1], [403, 1], [404, 1]] as const) {
    await t.step(`${status}`, async () => {
      const { clock, api, up } = rig();
      api.state.setFault("chart", { status, times: 1 });
      await drive(clock, up.chart(3)).catch(() => {});
      equal(api.state.requests.length, attempts);
    });
  }
});

Deno.test("Upstream waits for Retry-After when it fits the budget", async () => {
  const { clock, api, up } = rig();
  api.state.setFault("chart", {
    times: 1,
    hook: () => Response.json({ error: "slow down" }, { status: 429, headers: { "retry-after": "2" } }),
  });
  const chart = await drive(clock, up.chart(3), 100);
  equal(chart.id, 3);
  ok(clock.monotonic() >= 2000);
  const late = rig();
  late.api.state.setFault("chart", {
    hook: () => Response.json({ error: "slow down" }, { status: 429, headers: { "retry-after": "60" } }),
  });
  const e = asUpstreamError(await rejection(drive(late.clock, late.up.chart(3, { budgetMs: 5000 }))));
  equal(e.status, 429);
  equal(late.api.state.requests.length, 1);
});

Deno.test("Upstream retries network errors", async () => {
  const { clock, api } = rig();
  let failures = 1;
  const flaky: FetchLike = (input, init) => {
    if (failures-- > 0) return Promise.reject(new TypeError("connection refused"));
    return api.fetch(input, init);
  };
  const up = new Upstream({ baseUrl: "http://dev.invalid", fetch: flaky, clock, random: new SeededRandom(1) });
  equal((await drive(clock, up.chart(9))).id, 9);
  equal(up.stats().chart.retries, 1);
  equal(up.stats().chart.lastError, "Cannot fetch chart 9: network error: connection refused");

  const down = new Upstream({
    baseUrl: "http://dev.invalid",
    fetch: () => Promise.reject(new TypeError("connection refused")),
    clock,
    random: new SeededRandom(1),
    retry: { maxAttempts: 3 },
  });
  const e = asUpstreamError(await rejection(drive(clock, down.record(1001))));
  equal(e.kind, "network");
  equal(down.stats().record.retries, 2);
});

Deno.test("Upstream times out an attempt after 5000 ms on the injected clock", async () => {
  const { clock, api, up } = rig();
  api.state.setFault("me", { delayMs: 60_000 });
  const p = up.me(devToken(100), { budgetMs: 5000 });
  const e = asUpstreamError(await rejection(drive(clock, p, 100)));
  equal(e.kind, "timeout");
  equal(e.message, "Cannot fetch user info: request timed out after 5000 ms");
  equal(api.state.requests.length, 1);
  ok(clock.monotonic() >= 5000 && clock.monotonic() <= 5100);
});

Deno.test("Upstream keeps retries inside the budget", async () => {
  const { clock, api, up } = rig({ up: { attemptTimeoutMs: 1000 } });
  api.state.setFault("me", { delayMs: 60_000 });
  const e = asUpstreamError(await rejection(drive(clock, up.me(devToken(100), { budgetMs: 2500 }), 10)));
  equal(e.kind, "timeout");
  const attempts = api.state.requests.length;
  ok(attempts >= 2 && attempts <= 3, `attempts: ${attempts}`);
  ok(clock.monotonic() <= 2510, `elapsed ${clock.monotonic()}`);
  equal(up.stats().me.retries, attempts - 1);
});

Deno.test("Upstream succeeds when a slow first attempt is retried quickly", async () => {
  const { clock, api, up } = rig({ up: { attemptTimeoutMs: 1000 } });
  api.state.setFault("chart", { delayMs: 5000, times: 1 });
  equal((await drive(clock, up.chart(11, { budgetMs: 3000 }), 10)).id, 11);
  equal(up.stats().chart.retries, 1);
});

Deno.test("Upstream stops at once when the caller aborts", async () => {
  const { clock, api, up } = rig();
  api.state.setFault("me", { delayMs: 60_000 });
  const ctrl = new AbortController();
  const p = up.me(devToken(100), { signal: ctrl.signal });
  clock.advance(100);
  ctrl.abort();
  const e = asUpstreamError(await rejection(p));
  equal(e.kind, "aborted");
  equal(e.message, "Cannot fetch user info: aborted by caller");
});

Deno.test("Upstream login returns tokens and rejects bad credentials without retry", async () => {
  const { clock, api, up } = rig();
  const login = await drive(clock, up.login("user42@dev.local", "password"));
  equal(login.id, 42);
  equal(login.token, devToken(42));
  equal(typeof login.refreshToken, "string");
  equal(typeof login.expireAt, "string");
  deepEqual(await drive(clock, up.me(login.token)), { id: 42, name: "Player42", language: "en-US" });
  const e = asUpstreamError(await rejection(drive(clock, up.login("user42@dev.local", "wrong"))));
  equal(e.message, "Cannot log in: HTTP 401 Unauthorized");
  ok(!e.message.includes("wrong"));
  equal(api.state.requests.filter((r) => r.endpoint === "login").length, 2);
});

Deno.test("Upstream withBaseUrl targets another API and shares statistics", async () => {
  const clock = new ManualClock();
  const { api } = rig();
  const up = new Upstream({ baseUrl: "http://main.invalid/", fetch: api.fetch, clock });
  const room = up.withBaseUrl("http://room.invalid/api/");
  equal(room.baseUrl, "http://room.invalid/api");
  await drive(clock, up.chart(1));
  await drive(clock, room.chart(1)).catch(() => {});
  equal(up.stats().chart.calls, 2);
  deepEqual(api.state.requests.map((r) => r.path), ["/chart/1", "/api/chart/1"]);
});

Deno.test("Upstream runs at most maxConcurrent requests at once; the rest wait in order within their deadline", async () => {
  const clock = new ManualClock();
  const started: string[] = [];
  const finish: (() => void)[] = [];
  const slow: FetchLike = (input) => {
    const url = String(input);
    started.push(url.slice(url.lastIndexOf("/") + 1));
    return new Promise((resolve) =>
      finish.push(() => resolve(Response.json({ id: 1, name: "A", language: "en-US", rks: 0 })))
    );
  };
  const up = new Upstream({
    baseUrl: "http://dev.invalid",
    fetch: slow,
    clock,
    random: new SeededRandom(3),
    maxConcurrent: 2,
    retry: { maxAttempts: 1 },
  });
  // Shared across base URLs: the slots are the process's, not one endpoint's.
  const other = up.withBaseUrl("http://other.invalid");
  const calls = [up.user(1), other.user(2), up.user(3), up.user(4)];
  // Calls 2 and 3 are in flight when the clock passes their deadlines too.
  for (const c of calls) c.catch(() => {});
  await drive(clock, Promise.resolve(), 10, 100);
  deepEqual(started, ["1", "2"]);
  deepEqual(up.requests(), { in_flight: 2, waiting: 2, limit: 2 });
  finish.shift()!();
  await drive(clock, Promise.resolve(), 10, 100);
  deepEqual(started, ["1", "2", "3"]);
  // Call 4 waits past its 5 s attempt: it times out without ever being sent.
  const last = calls.pop()!;
  const e = asUpstreamError(await rejection(drive(clock, last, 100, 6000)));
  equal(e.kind, "timeout");
  deepEqual(started, ["1", "2", "3"]);
  while (finish.length) finish.shift()!();
  equal((await calls[0]!).name, "A");
  // The slots all came back: a new call goes straight out.
  const next = up.user(5);
  await drive(clock, Promise.resolve(), 10, 100);
  deepEqual(started, ["1", "2", "3", "5"]);
  finish.shift()!();
  equal((await next).name, "A");
  deepEqual(other.requests(), { in_flight: 0, waiting: 0, limit: 2 });
});
