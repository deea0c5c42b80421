/**
 * The legacy HTTP API (spec 3 §4.7; tphira's codes): CORS with answered
 * preflights, `/room` and `/stats` with real values, the admin token from
 * every place it may come from (compared in constant time), lockouts after
 * repeated failures, one-time codes printed on the console only and traded
 * for temporary tokens bound to the caller's address, and the admin
 * endpoints acting through the operations layer.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { jsonOf, type LegacyHarness, startLegacy } from "./support/legacy.ts";

const TOKEN = "a-long-admin-token-for-tests";
const post = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

async function withToken(fn: (t: LegacyHarness) => Promise<void>, config: Record<string, unknown> = {}) {
  const t = await startLegacy({ config: { admin_token: TOKEN, ...config } as never });
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

Deno.test("legacy http: CORS on every answer, preflight 204, unknown paths 404", () =>
  withToken(async (t) => {
    const pre = await t.fetch("/admin/rooms", { method: "OPTIONS" });
    equal(pre.status, 204);
    equal(pre.headers.get("access-control-allow-origin"), "*");
    match(pre.headers.get("access-control-allow-headers")!, /X-Admin-Token/);
    const room = await t.fetch("/room");
    equal(room.headers.get("access-control-allow-origin"), "*");
    const missing = await jsonOf(await t.fetch("/nope"));
    deepEqual(missing, { status: 404, body: { ok: false, error: "not-found" } });
    equal((await t.fetch("/admin/rooms")).headers.get("access-control-allow-origin"), "*", "errors too");
  }));

Deno.test("legacy http: /room in the spec's shape and tphira's, /stats with real values", () =>
  withToken(async (t) => {
    const alice = await t.h.login(100);
    const bob = await t.h.login(200);
    await alice.createRoom("zeta");
    await alice.selectChart(7);
    await bob.createRoom("alpha");
    await t.ops.call("room.create", { room_id: "_virtual" }, { kind: "console" });
    await t.ops.call("room.create", { room_id: "-hidden" }, { kind: "console" });
    deepEqual(await (await t.fetch("/room")).json(), {
      rooms: [
        { id: "alpha", name: "alpha", players: 1, maxPlayers: 100, status: "select_chart" },
        { id: "zeta", name: "zeta", players: 1, maxPlayers: 100, status: "select_chart" },
      ],
      total: 2,
    });
    deepEqual(await (await t.fetch("/room?format=tphira")).json(), {
      rooms: [
        {
          roomid: "alpha",
          cycle: false,
          lock: false,
          host: { name: "Bob", id: "200" },
          state: "select_chart",
          chart: null,
          players: [{ name: "Bob", id: 200 }],
        },
        {
          roomid: "zeta",
          cycle: false,
          lock: false,
          host: { name: "Alice", id: "100" },
          state: "select_chart",
          chart: { name: "Lucky Seven", id: "7" },
          players: [{ name: "Alice", id: 100 }],
        },
      ],
      total: 2,
    });
    await t.h.advance(5000);
    const stats = await (await t.fetch("/stats")).json();
    deepEqual({ ...stats, version: typeof stats.version }, {
      users: 2,
      sessions: 2,
      rooms: 4,
      uptime: 5,
      version: "string",
    });
  }));

Deno.test("legacy http: the admin token from header, bearer, query or body; wrong ones count toward a lockout", () =>
  withToken(async (t) => {
    const sources: [string, RequestInit][] = [
      ["/admin/rooms", { headers: { "x-admin-token": TOKEN } }],
      ["/admin/rooms", { headers: { authorization: `Bearer ${TOKEN}` } }],
      [`/admin/rooms?token=${TOKEN}`, {}],
      [`/admin/rooms?admin_token=${TOKEN}`, {}],
    ];
    for (const [path, init] of sources) equal((await t.fetch(path, init)).status, 200, path);
    equal((await t.fetch("/admin/broadcast", post({ token: TOKEN, message: "hi" }))).status, 200);
    equal((await t.fetch("/admin/broadcast", post({ admin_token: TOKEN, message: "hi" }))).status, 200);
    deepEqual(await jsonOf(await t.fetch("/admin/rooms")), { status: 401, body: { ok: false, error: "unauthorized" } });
    deepEqual(await jsonOf(await t.fetch("/admin/otp/request", { method: "POST" })), {
      status: 403,
      body: { ok: false, error: "otp-disabled-when-token-configured" },
    });
    for (let i = 0; i < 4; i++) {
      equal(
        (await t.fetch("/admin/rooms", { headers: { "x-admin-token": `wrong${i}` }, ip: "203.0.113.9" })).status,
        401,
      );
    }
    deepEqual(
      await jsonOf(await t.fetch("/admin/rooms", { headers: { "x-admin-token": "wrong" }, ip: "203.0.113.9" })),
      { status: 401, body: { ok: false, error: "unauthorized" } },
      "the fifth failure locks",
    );
    deepEqual(
      await jsonOf(await t.fetch("/admin/rooms", { headers: { "x-admin-token": TOKEN }, ip: "203.0.113.9" })),
      { status: 403, body: { ok: false, error: "ip-banned-too-many-attempts" } },
      "even the right token is refused while locked",
    );
    equal((await t.fetch("/admin/rooms", { headers: { "x-admin-token": TOKEN }, ip: "203.0.113.10" })).status, 200);
    await t.h.advance(15 * 60_000);
    equal((await t.fetch("/admin/rooms", { headers: { "x-admin-token": TOKEN }, ip: "203.0.113.9" })).status, 200);
    const audit = t.ops.audit.recent(50).filter((e) => e.source === "http-admin");
    ok(audit.some((e) => e.op === "legacy.say" && e.actor === "127.0.0.1"), "admin actions are audited by address");
  }));

Deno.test("legacy http: without admin_token the admin API is off except one-time codes", async () => {
  const t = await startLegacy();
  try {
    deepEqual(await jsonOf(await t.fetch("/admin/rooms")), {
      status: 403,
      body: { ok: false, error: "admin-disabled" },
    });
    const req = await jsonOf(await t.fetch("/admin/otp/request", { method: "POST", ip: "198.51.100.7" }));
    equal(req.status, 200);
    deepEqual(Object.keys(req.body).sort(), ["expiresIn", "ok", "ssid"]);
    equal(req.body.expiresIn, 300000);
    const printed = t.consoleLines.find((l) => l.includes(String(req.body.ssid)));
    ok(printed, "the code is printed on the console");
    const code = /OTP: ([a-z0-9]{8})/.exec(printed)![1]!;
    ok(!JSON.stringify(req.body).includes(code), "never in the response");
    ok(!t.h.logs.history().some((r) => r.line.includes(code)), "never in the logs");

    deepEqual(await jsonOf(await t.fetch("/admin/otp/verify", post({ ssid: req.body.ssid }))), {
      status: 400,
      body: { ok: false, error: "bad-request" },
    });
    deepEqual(
      await jsonOf(
        await t.fetch("/admin/otp/verify", { ...post({ ssid: req.body.ssid, otp: "zzzzzzzz" }), ip: "198.51.100.7" }),
      ),
      {
        status: 401,
        body: { ok: false, error: "invalid-or-expired-otp" },
      },
    );
    const good = await jsonOf(
      await t.fetch("/admin/otp/verify", { ...post({ ssid: req.body.ssid, otp: code }), ip: "198.51.100.7" }),
    );
    equal(good.status, 200);
    equal(good.body.expiresIn, 4 * 3600 * 1000);
    equal(good.body.expiresAt, t.h.clock.now() + 4 * 3600 * 1000);
    const temp = String(good.body.token);
    deepEqual(
      await jsonOf(
        await t.fetch("/admin/otp/verify", { ...post({ ssid: req.body.ssid, otp: code }), ip: "198.51.100.7" }),
      ),
      {
        status: 401,
        body: { ok: false, error: "invalid-or-expired-otp" },
      },
      "a code works once",
    );
    equal((await t.fetch("/admin/rooms", { headers: { "x-admin-token": temp }, ip: "198.51.100.7" })).status, 200);
    deepEqual(await jsonOf(await t.fetch("/admin/rooms", { headers: { "x-admin-token": temp }, ip: "198.51.100.8" })), {
      status: 401,
      body: { ok: false, error: "token-expired" },
    }, "bound to the address that verified it");
    equal(
      (await t.fetch("/admin/rooms", { headers: { "x-admin-token": temp }, ip: "198.51.100.7" })).status,
      403,
      "and revoked once used from elsewhere",
    );

    // A new code expires after 4 hours of use; three wrong codes end the session and lock the address.
    const second = await jsonOf(await t.fetch("/admin/otp/request", { method: "POST", ip: "198.51.100.20" }));
    const code2 = /OTP: ([a-z0-9]{8})/.exec(t.consoleLines.find((l) => l.includes(String(second.body.ssid)))!)![1]!;
    const token2 = (await jsonOf(
      await t.fetch("/admin/otp/verify", { ...post({ ssid: second.body.ssid, otp: code2 }), ip: "198.51.100.20" }),
    )).body.token;
    await t.h.advance(4 * 3600 * 1000);
    deepEqual(
      await jsonOf(
        await t.fetch("/admin/rooms", { headers: { authorization: `Bearer ${token2}` }, ip: "198.51.100.20" }),
      ),
      {
        status: 401,
        body: { ok: false, error: "token-expired" },
      },
    );
    const third = await jsonOf(await t.fetch("/admin/otp/request", { method: "POST", ip: "198.51.100.30" }));
    const wrong = () =>
      t.fetch("/admin/otp/verify", { ...post({ ssid: third.body.ssid, otp: "wrongcod" }), ip: "198.51.100.30" });
    equal((await wrong()).status, 401);
    equal((await wrong()).status, 401);
    deepEqual(await jsonOf(await wrong()), {
      status: 403,
      body: { ok: false, error: "ssid-banned-too-many-attempts" },
    });
    deepEqual(await jsonOf(await t.fetch("/admin/otp/request", { method: "POST", ip: "198.51.100.30" })), {
      status: 403,
      body: { ok: false, error: "ip-banned-too-many-attempts" },
    });
    // Each request prints on the operator's console: five per address in ten minutes.
    for (let i = 0; i < 5; i++) {
      equal((await t.fetch("/admin/otp/request", { method: "POST", ip: "192.0.2.77" })).status, 200);
    }
    deepEqual(await jsonOf(await t.fetch("/admin/otp/request", { method: "POST", ip: "192.0.2.77" })), {
      status: 429,
      body: { ok: false, error: "too-many-requests" },
    });
  } finally {
    await t.close();
  }
});

Deno.test("legacy http admin: rooms, capacity, disband, chat, users, bans, addresses, switches, plugins", () =>
  withToken(async (t) => {
    const auth = { "x-admin-token": TOKEN };
    const get = async (path: string) => await jsonOf(await t.fetch(path, { headers: auth }));
    const send = async (path: string, body: unknown) => await jsonOf(await t.fetch(path, post(body, auth)));
    const alice = await t.h.login(100);
    const bob = await t.h.login(200);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");

    const rooms = await get("/admin/rooms");
    equal(rooms.status, 200);
    const room = (rooms.body.rooms as Record<string, unknown>[])[0]!;
    deepEqual([room.roomid, room.max_users, room.state, (room.host as { id: number }).id], ["abc", 100, {
      type: "select_chart",
    }, 100]);
    deepEqual((room.users as { id: number; connected: boolean }[]).map((u) => [u.id, u.connected]), [[100, true], [
      200,
      true,
    ]]);

    deepEqual(await send("/admin/rooms/abc/max_users", { maxUsers: 2 }), {
      status: 200,
      body: { ok: true, roomid: "abc", max_users: 2 },
    });
    deepEqual(await send("/admin/rooms/max_users", { roomId: "abc", maxUsers: 3 }), {
      status: 200,
      body: { ok: true, roomid: "abc", max_users: 3 },
    });
    equal(t.h.server.core.rooms.get("abc")!.maxPlayers, 3);
    deepEqual(await send("/admin/rooms/abc/max_users", { maxUsers: 65 }), {
      status: 400,
      body: { ok: false, error: "bad-max-users" },
    });
    deepEqual((await send("/admin/rooms/nope/max_users", { maxUsers: 4 })).body.error, "room-not-found");
    deepEqual(await send("/admin/rooms/max_users", { roomId: "bad id!", maxUsers: 4 }), {
      status: 400,
      body: { ok: false, error: "bad-room-id" },
    });

    deepEqual(await send("/admin/rooms/abc/chat", { message: "" }), {
      status: 400,
      body: { ok: false, error: "bad-message" },
    });
    deepEqual(await send("/admin/broadcast", { message: "x".repeat(201) }), {
      status: 400,
      body: { ok: false, error: "message-too-long" },
    });
    deepEqual(await send("/admin/rooms/abc/chat", { message: "hello room" }), {
      status: 200,
      body: { ok: true, roomid: "abc", users: 2 },
    });
    deepEqual(await send("/admin/broadcast", { message: "hello all" }), {
      status: 200,
      body: { ok: true, rooms: 1, users: 2 },
    });

    deepEqual((await get("/admin/users/200")).body.user, {
      id: 200,
      name: "Bob",
      monitor: false,
      connected: true,
      room: "abc",
      banned: false,
      language: "en-US",
      ip: "127.0.0.1",
    });
    deepEqual((await get("/admin/users/info?id=200")).body.user !== undefined, true);
    deepEqual(await get("/admin/users/999"), { status: 404, body: { ok: false, error: "user-not-found" } });
    deepEqual(await send("/admin/users/999/disconnect", {}), {
      status: 404,
      body: { ok: false, error: "user-not-connected", message: "user 999 is not connected" },
    });
    deepEqual(await send("/admin/ban/user", { userId: 200, banned: true, reason: "spam" }), {
      status: 200,
      body: { ok: true, userId: 200, banned: true },
    });
    equal(t.h.server.core.bans.userBan(200)?.reason, "spam");
    equal(t.h.server.core.users.has(200), false, "disconnected");
    deepEqual(await send("/admin/ban/user", { userId: 200, banned: false }), {
      status: 200,
      body: { ok: true, userId: 200, banned: false, changed: true },
    });
    deepEqual(await send("/admin/ban/room", { userId: 300, roomId: "abc" }), {
      status: 200,
      body: { ok: true, userId: 300, roomId: "abc", banned: true, changed: true },
    });

    await t.ops.call("legacy.ban_ip", { ip: "192.0.2.50" }, { kind: "console" });
    deepEqual((await get("/admin/ip-blacklist")).body.blacklist, [{ ip: "192.0.2.50", list: "game", expiresIn: null }]);
    deepEqual(await send("/admin/ip-blacklist/remove", { ip: "192.0.2.50" }), {
      status: 200,
      body: { ok: true, ip: "192.0.2.50", removed: true },
    });
    deepEqual((await send("/admin/ip-blacklist/clear", {})).body, { ok: true, cleared: { game: 0, admin_api: 0 } });
    equal((await get("/admin/log-rate")).status, 200);

    deepEqual(await get("/admin/replay/config"), { status: 200, body: { ok: true, enabled: false } });
    deepEqual(await send("/admin/replay/config", { enabled: "yes" }), {
      status: 400,
      body: { ok: false, error: "bad-enabled" },
    });
    deepEqual(await send("/admin/replay/config", { enabled: true }), {
      status: 200,
      body: { ok: true, enabled: true },
    });
    equal(t.mode.ctx.switches.replay, true);
    deepEqual(await send("/admin/room-creation/config", { enabled: false }), {
      status: 200,
      body: { ok: true, enabled: false },
    });
    equal(t.h.server.core.switches.roomCreation, false);

    deepEqual(await send("/admin/rooms/abc/disband", {}), { status: 200, body: { ok: true, roomid: "abc" } });
    equal(t.h.server.core.rooms.has("abc"), false);
    deepEqual((await send("/admin/rooms/disband", { roomId: "abc" })).status, 404);
    deepEqual((await get("/admin/plugins")).body, { ok: true, plugins: [], problems: [] });
  }));
