/**
 * The admin panel's page and JSON endpoints (spec 2 §4.2) in process, with
 * real TCP players: login, cookie attributes, rate limit, sessions, room
 * and ban actions, CSRF refusals and the password policy.
 */
import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { defaultConfig } from "../src/config/mod.ts";
import { createHttpApp } from "../src/http/mod.ts";
import { VERSION } from "../src/http/context.ts";
import { expectLog, mark, waitUntil } from "./support/describe.ts";
import { ADMIN_PASSWORD, type HttpHarness, startHttpHarness } from "./support/http.ts";

type Call = { status: number; body: unknown; headers: Headers };

function call(h: HttpHarness, method: string, path: string, body?: unknown, cookie?: string): Promise<Call> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (cookie) headers.cookie = cookie;
  return h.json(`/admin/api/${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

async function login(h: HttpHarness): Promise<string> {
  const res = await call(h, "POST", "login", { password: ADMIN_PASSWORD });
  equal(res.status, 200);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

Deno.test("http admin page is served with a strict CSP; other files are not", async () => {
  const h = await startHttpHarness();
  try {
    for (const path of ["/admin", "/admin/"]) {
      const page = await h.http.request(path);
      equal(page.status, 200);
      equal(page.headers.get("content-type"), "text/html; charset=utf-8");
      match(page.headers.get("content-security-policy") ?? "", /script-src 'self'/);
      equal(page.headers.get("x-frame-options"), "DENY");
      match(await page.text(), /<title>Chorus admin<\/title>/);
    }
    const js = await h.http.request("/admin/admin.js");
    equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
    match(await js.text(), /REFRESH_MS = 5000/);
    const messages = await h.http.request("/admin/messages.js");
    equal(messages.headers.get("content-type"), "text/javascript; charset=utf-8");
    match(await messages.text(), /"state\.SELECTING_CHART": "Selecting a chart"/);
    deepEqual((await h.json("/admin/../deno.json")).status, 404);
    deepEqual((await h.json("/admin/deno.json")).body, { error: "route not found: /admin/deno.json", code: 404 });
  } finally {
    await h.close();
  }
});

Deno.test("http admin login: wrong password, cookie attributes, session, logout", async () => {
  const h = await startHttpHarness();
  try {
    deepEqual((await call(h, "GET", "session")).body, { enabled: true, authenticated: false });
    deepEqual((await call(h, "GET", "state")).body, { error: "login required", code: 401 });
    const wrong = await call(h, "POST", "login", { password: "nope" });
    deepEqual([wrong.status, wrong.body, wrong.headers.get("set-cookie")], [401, {
      error: "wrong password",
      code: 401,
    }, null]);
    const res = await call(h, "POST", "login", { password: ADMIN_PASSWORD });
    deepEqual(res.body, { ok: true });
    const setCookie = res.headers.get("set-cookie")!;
    match(setCookie, /^chorus_admin=[A-Za-z0-9_-]{43};/);
    match(setCookie, /; HttpOnly/);
    match(setCookie, /; SameSite=Strict/);
    match(setCookie, /; Path=\/admin/);
    equal(/Secure/.test(setCookie), false);
    const cookie = setCookie.split(";")[0]!;
    deepEqual((await call(h, "GET", "session", undefined, cookie)).body, { enabled: true, authenticated: true });
    equal(res.headers.get("cache-control"), "no-store");
    deepEqual((await call(h, "POST", "logout", {}, cookie)).body, { ok: true });
    deepEqual((await call(h, "GET", "state", undefined, cookie)).status, 401);
    // Neither the password nor the session token reaches the log.
    const token = cookie.split("=")[1]!;
    const lines = h.logs.history().map((r) => r.line).join("\n");
    equal(lines.includes(ADMIN_PASSWORD), false);
    equal(lines.includes(token), false);
    match(lines, /admin login failed: wrong password/);
  } finally {
    await h.close();
  }
});

Deno.test("http admin login attempts are rate limited per address; sessions expire when idle", async () => {
  const h = await startHttpHarness();
  try {
    for (let i = 0; i < 5; i++) equal((await call(h, "POST", "login", { password: `guess${i}` })).status, 401);
    const limited = await call(h, "POST", "login", { password: ADMIN_PASSWORD });
    deepEqual([limited.status, limited.body], [429, { error: "too many login attempts", code: 429 }]);
    equal(limited.headers.get("retry-after"), "60");
    // Another address is not affected.
    const other = await h.http.request("/admin/api/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: ADMIN_PASSWORD }),
    }, { ip: "10.0.0.2" });
    equal(other.status, 200);
    await other.body?.cancel();
    await h.advance(60_000);
    const cookie = await login(h);
    equal((await call(h, "GET", "state", undefined, cookie)).status, 200);
    await h.advance(29 * 60_000);
    equal((await call(h, "GET", "state", undefined, cookie)).status, 200);
    await h.advance(30 * 60_000 + 1);
    equal((await call(h, "GET", "state", undefined, cookie)).status, 401);
  } finally {
    await h.close();
  }
});

Deno.test("http admin state: status, online players (also in no room), rooms with chart, lock and cycle, bans", async () => {
  const h = await startHttpHarness({ httpConfig: { server_name: "Night Owls" } });
  try {
    // Up for 1 h 2 min 3 s before anyone connects (an idle client would miss its heartbeats).
    await h.advance(3_723_000);
    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    await alice.selectChart(7);
    await alice.cycleRoom(true);
    await (await h.login(300)).createRoom("-quiet");
    await (await h.login(9)).joinRoom("abc", true);
    await h.login(400, "zh-CN");
    const name = (id: number) => h.server.core.users.get(id)!.name;
    const cookie = await login(h);
    const player = (id: number, room: string | null, monitor = false, language = "en-US") => ({
      id,
      name: name(id),
      room,
      monitor,
      language,
      admin: false,
    });
    deepEqual((await call(h, "GET", "state", undefined, cookie)).body, {
      server_name: "Night Owls",
      player_count: 5,
      status: {
        version: VERSION,
        uptime_secs: 3723,
        players_online: 5,
        rooms: 2,
        sessions: 5,
        shutting_down: false,
        connections_enabled: true,
        room_creation_enabled: true,
        ready: true,
        issues: [],
        store: { enabled: false },
      },
      players: [
        player(100, "abc"),
        player(200, "abc"),
        player(300, "-quiet"),
        player(9, "abc", true),
        player(400, null, false, "zh-CN"),
      ],
      rooms: [
        {
          name: "abc",
          hidden: false,
          state: "SELECTING_CHART",
          locked: false,
          cycle: true,
          host: 100,
          player_count: 2,
          max_users: 100,
          persistent: false,
          tournament: false,
          live: true, // a monitor joined
          chart: { id: 7, name: "Lucky Seven" },
          players: [
            { id: 100, name: "Alice", online: true, ready: false },
            { id: 200, name: "Bob", online: true, ready: false },
          ],
          monitors: [{ id: 9, name: name(9), online: true }],
        },
        {
          name: "-quiet",
          hidden: true,
          state: "SELECTING_CHART",
          locked: false,
          cycle: false,
          host: 300,
          player_count: 1,
          max_users: 100,
          persistent: false,
          tournament: false,
          live: false,
          chart: null,
          players: [{ id: 300, name: name(300), online: true, ready: false }],
          monitors: [],
        },
      ],
      bans: [],
    });

    // Who is ready shows while the room waits for them.
    await alice.requestStart();
    const waiting = (await call(h, "GET", "state", undefined, cookie)).body as {
      rooms: { name: string; state: string; players: { ready: boolean }[] }[];
    };
    deepEqual(waiting.rooms[0]!.state, "WAITING_FOR_READY");
    deepEqual(waiting.rooms[0]!.players.map((p) => p.ready), [true, false]);
  } finally {
    await h.close();
  }
});

Deno.test("http admin state shows readiness issues", async () => {
  let health = { ready: true, issues: [] as string[] };
  const h = await startHttpHarness({ health: () => health });
  try {
    const cookie = await login(h);
    health = { ready: false, issues: ["store unreachable: records wait in the journal"] };
    const state = (await call(h, "GET", "state", undefined, cookie)).body as { status: Record<string, unknown> };
    deepEqual([state.status.ready, state.status.issues], [false, ["store unreachable: records wait in the journal"]]);
  } finally {
    await h.close();
  }
});

Deno.test("http admin lock and cycle switch a room through the operations", async () => {
  const h = await startHttpHarness();
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    const cookie = await login(h);
    const room = () => h.server.core.rooms.get("abc")!;
    deepEqual((await call(h, "POST", "rooms/abc/lock", { locked: true }, cookie)).body, { ok: true, locked: true });
    equal(room().locked, true);
    await waitUntil(() => alice.locked === true, "the client sees the lock");
    deepEqual((await call(h, "POST", "rooms/abc/lock", { locked: false }, cookie)).body, { ok: true, locked: false });
    equal(room().locked, false);
    deepEqual((await call(h, "POST", "rooms/abc/cycle", { cycle: true }, cookie)).body, { ok: true, cycle: true });
    equal(room().cycle, true);
    await waitUntil(() => alice.cycle === true, "the client sees cycle on");
    deepEqual((await call(h, "POST", "rooms/abc/cycle", { cycle: false }, cookie)).body, { ok: true, cycle: false });
    equal(room().cycle, false);

    // Errors: missing room, malformed name and body, no session, cross-site.
    deepEqual((await call(h, "POST", "rooms/zzz/lock", { locked: true }, cookie)).body, {
      error: "room not found: zzz",
      code: 404,
    });
    deepEqual((await call(h, "POST", "rooms/a%20b/cycle", { cycle: true }, cookie)).body, {
      error: 'invalid room name "a b"',
      code: 400,
    });
    deepEqual((await call(h, "POST", "rooms/abc/lock", { locked: "yes" }, cookie)).body, {
      error: "invalid request: locked",
      code: 400,
    });
    deepEqual((await call(h, "POST", "rooms/abc/cycle", {}, cookie)).body, {
      error: "invalid request: cycle",
      code: 400,
    });
    deepEqual((await call(h, "POST", "rooms/abc/lock", { locked: true })).body, { error: "login required", code: 401 });
    const foreign = await h.json("/admin/api/rooms/abc/lock", {
      method: "POST",
      headers: { cookie, "content-type": "application/json", origin: "https://evil.example" },
      body: JSON.stringify({ locked: true }),
    });
    deepEqual(foreign.body, { error: "cross-site request refused", code: 403 });
    equal(room().locked, false);
    const audited = h.http.context.ops.audit.recent(10).filter((e) => e.source === "http-admin").map((e) => e.op);
    deepEqual(audited.slice(0, 4).sort(), ["room.cycle", "room.cycle", "room.lock", "room.lock"]);
  } finally {
    await h.close();
  }
});

Deno.test("http admin kick, disband, disconnect, ban and unban act on the live server", async (t) => {
  const h = await startHttpHarness();
  try {
    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    const cookie = await login(h);
    await t.step("kick from a room", async () => {
      const b = mark(bob);
      deepEqual((await call(h, "POST", "rooms/abc/kick", { user_id: 200 }, cookie)).body, { ok: true });
      await expectLog(bob, [
        "Message.LeaveRoom{user:200,name:Bob}",
        "Message.Chat{user:0,content:You were removed from room abc by an administrator}",
      ], b);
      deepEqual((await call(h, "POST", "rooms/abc/kick", { user_id: 200 }, cookie)).body, {
        error: "user 200 is not in room abc",
        code: 404,
      });
      deepEqual((await call(h, "POST", "rooms/zzz/kick", { user_id: 200 }, cookie)).body, {
        error: "room not found: zzz",
        code: 404,
      });
      deepEqual((await call(h, "POST", "rooms/a%20b/kick", { user_id: 1 }, cookie)).status, 400);
      deepEqual((await call(h, "POST", "rooms/abc/kick", { user_id: "x" }, cookie)).body, {
        error: "invalid request: user_id",
        code: 400,
      });
    });
    await t.step("disband", async () => {
      deepEqual((await call(h, "POST", "rooms/abc/disband", {}, cookie)).body, { ok: true });
      equal(h.server.core.rooms.has("abc"), false);
      deepEqual((await call(h, "POST", "rooms/abc/disband", {}, cookie)).status, 404);
    });
    await t.step("ban disconnects; the banned id cannot log in; unban lifts it", async () => {
      deepEqual((await call(h, "POST", "bans", { user_id: 200, reason: "cheating" }, cookie)).body, { ok: true });
      await bob.closed;
      const state = (await call(h, "GET", "state", undefined, cookie)).body as { bans: unknown[] };
      deepEqual(state.bans, [{ user_id: 200, reason: "cheating", banned_at: h.clock.now() }]);
      const again = await h.connect();
      await again.authenticate((await import("./support/harness.ts")).devToken(200)).then(
        () => ok(false, "a banned user logged in"),
        (e: Error) => match(e.message, /cheating/),
      );
      deepEqual((await call(h, "DELETE", "bans/200", undefined, cookie)).body, { ok: true });
      deepEqual((await call(h, "DELETE", "bans/200", undefined, cookie)).body, {
        error: "user 200 is not banned",
        code: 404,
      });
      deepEqual((await call(h, "DELETE", "bans/x", undefined, cookie)).status, 400);
      await h.login(200);
    });
    await t.step("disconnect", async () => {
      deepEqual((await call(h, "POST", "users/100/disconnect", { reason: "bye" }, cookie)).body, { ok: true });
      await alice.closed;
      await waitUntil(() => !h.server.core.users.has(100), "user gone");
      deepEqual((await call(h, "POST", "users/100/disconnect", {}, cookie)).status, 404);
    });
  } finally {
    await h.close();
  }
});

Deno.test("http admin refuses cross-site and non-JSON state changes, and large bodies", async () => {
  const h = await startHttpHarness();
  try {
    await (await h.login(100)).createRoom("abc");
    const cookie = await login(h);
    const post = (headers: Record<string, string>, body = "{}") =>
      h.json("/admin/api/rooms/abc/disband", { method: "POST", headers: { cookie, ...headers }, body });
    deepEqual((await post({ "content-type": "text/plain" })).body, {
      error: "expected Content-Type: application/json",
      code: 415,
    });
    const json = { "content-type": "application/json" };
    deepEqual((await post({ ...json, origin: "https://evil.example" })).status, 403);
    deepEqual((await post({ ...json, origin: "null" })).status, 403);
    deepEqual((await post({ ...json, "sec-fetch-site": "cross-site" })).body, {
      error: "cross-site request refused",
      code: 403,
    });
    deepEqual((await post(json, JSON.stringify({ pad: "x".repeat(5000) }))).status, 413);
    equal(h.server.core.rooms.has("abc"), true);
    deepEqual((await post({ ...json, origin: "http://localhost", "sec-fetch-site": "same-origin" })).body, {
      ok: true,
    });
  } finally {
    await h.close();
  }
});

Deno.test("http admin password policy: disabled without one, refused in Production when missing or well known", async () => {
  const h = await startHttpHarness({ httpConfig: { admin_password: null } });
  try {
    deepEqual((await call(h, "GET", "session")).body, { enabled: false, authenticated: false });
    deepEqual((await call(h, "POST", "login", { password: "" })).body, {
      error: "admin panel disabled: admin_password is not set",
      code: 503,
    });
    const make = (profile: "Production" | "Development", admin_password: string | null) =>
      createHttpApp({ server: h.server, config: { ...defaultConfig(), profile, admin_password } });
    throws(() => make("Production", null), /Cannot start the admin panel: admin_password is not set/);
    throws(() => make("Production", "Admin"), /well-known password/);
    make("Production", ADMIN_PASSWORD);
    make("Development", "admin");
    match(h.logs.history().map((r) => r.line).join("\n"), /ADMIN PANEL PASSWORD IS WEAK/);
  } finally {
    await h.close();
  }
});
