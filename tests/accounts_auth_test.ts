/**
 * Account backend: login, sessions (cookies, expiry, revocation), the login
 * limits, CSRF protection and the error envelope — over the HTTP app in
 * process with a manual clock.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { ROOT_PASSWORD, startTestAccounts } from "./support/accounts.ts";

const HOUR = 3_600_000;

Deno.test("login answers the User, sets an HttpOnly SameSite session cookie and a CSRF token; /me and logout", async () => {
  const t = await startTestAccounts();
  try {
    const c = t.client();
    equal((await c.get("/api/auth/me")).status, 401);
    const res = await c.raw("POST", "/api/auth/login", { username: "root", password: ROOT_PASSWORD });
    equal(res.status, 200);
    const user = await res.json();
    deepEqual(Object.keys(user), [
      "id",
      "group_id",
      "username",
      "game_id",
      "game_username",
      "game_rks",
      "game_avatar",
      "register_time",
      "last_login_time",
      "last_sync_time",
    ]);
    equal(user.id, 1);
    equal(user.group_id, 1);
    equal(user.last_login_time, new Date(t.clock.now()).toISOString(), "the original never set it");
    const [session, csrf] = res.headers.getSetCookie();
    match(session!, /^chorus_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    match(csrf!, /^chorus_csrf=[A-Za-z0-9_-]{43}; Path=\/; SameSite=Strict$/, "not HttpOnly: the page reads it");
    equal(res.headers.get("x-csrf-token"), c.cookies.get("chorus_csrf"));
    const me = await c.get("/api/auth/me");
    equal(me.status, 200);
    equal((me.body as { username: string }).username, "root");
    equal(me.headers.get("x-csrf-token"), c.csrf);
    // Logout revokes server-side: replaying the old cookie gets nothing.
    const stolen = new Map(c.cookies);
    const out = await c.post("/api/auth/logout");
    deepEqual(out.body, { message: "success" });
    equal(c.cookies.size, 0, "both cookies cleared");
    const replay = t.client();
    for (const [k, v] of stolen) replay.cookies.set(k, v);
    equal((await replay.get("/api/auth/me")).status, 401);
    const again = await c.post("/api/auth/logout");
    deepEqual(again.body, { error: "log in first (no valid session cookie)", code: "unauthenticated", status: 401 });
  } finally {
    await t.close();
  }
});

Deno.test("sessions expire after 12 hours; remember gives 30 days (not a year) and a persistent cookie", async () => {
  const t = await startTestAccounts();
  try {
    const short = await t.login("root", ROOT_PASSWORD);
    const long = t.client();
    const res = await long.raw("POST", "/api/auth/login", {
      username: "root",
      password: ROOT_PASSWORD,
      remember: true,
    });
    await res.body?.cancel();
    for (const cookie of res.headers.getSetCookie()) match(cookie, /; Max-Age=2592000/);
    t.clock.advance(12 * HOUR - 1);
    equal((await short.get("/api/auth/me")).status, 200);
    t.clock.advance(1);
    equal((await short.get("/api/auth/me")).status, 401, "expired at 12 h");
    equal((await long.get("/api/auth/me")).status, 200);
    t.clock.advance(30 * 24 * HOUR - 12 * HOUR);
    equal((await long.get("/api/auth/me")).status, 401, "expired at 30 days");
  } finally {
    await t.close();
  }
});

Deno.test("unknown names and wrong passwords get the same 401; bodies are checked before anything else", async () => {
  const t = await startTestAccounts();
  try {
    const c = t.client();
    const wrong = await c.post("/api/auth/login", { username: "root", password: "nope-nope" });
    const unknown = await c.post("/api/auth/login", { username: "ghost", password: "nope-nope" });
    deepEqual(wrong.body, { error: "wrong username or password", code: "invalid_credentials", status: 401 });
    deepEqual(unknown.body, wrong.body);
    const cases: [string, unknown, string, number, string][] = [
      ["not JSON", "{", "application/json", 400, "invalid_json"],
      ["an array", "[]", "application/json", 400, "invalid_json"],
      ["missing password", JSON.stringify({ username: "root" }), "application/json", 400, "invalid_request"],
      [
        "password a number",
        JSON.stringify({ username: "root", password: 5 }),
        "application/json",
        400,
        "invalid_request",
      ],
      [
        "remember a string",
        JSON.stringify({ username: "r", password: "p", remember: "yes" }),
        "application/json",
        400,
        "invalid_request",
      ],
      [
        "an unknown field",
        JSON.stringify({ username: "r", password: "p", admin: true }),
        "application/json",
        400,
        "invalid_request",
      ],
      ["form data", "username=root", "application/x-www-form-urlencoded", 415, "unsupported_media_type"],
      [
        "20 KiB",
        JSON.stringify({ username: "x".repeat(20_000), password: "p" }),
        "application/json",
        413,
        "body_too_large",
      ],
    ];
    for (const [what, body, type, status, code] of cases) {
      const res = await c.req("POST", "/api/auth/login", body, { headers: { "content-type": type } });
      equal(res.status, status, what);
      equal((res.body as { code: string }).code, code, what);
    }
  } finally {
    await t.close();
  }
});

Deno.test("failed logins are limited per account (10) and per address (30) for 15 minutes; a success clears the account", async () => {
  const t = await startTestAccounts();
  try {
    const attacker = t.client("10.0.0.1");
    for (let i = 0; i < 10; i++) {
      equal((await attacker.post("/api/auth/login", { username: "root", password: `guess-${i}` })).status, 401);
    }
    const locked = await attacker.post("/api/auth/login", { username: "root", password: ROOT_PASSWORD });
    equal(locked.status, 429, "even the right password waits: no oracle");
    equal(locked.headers.get("retry-after"), "900");
    equal(
      (await t.client("10.0.0.2").post("/api/auth/login", { username: "ROOT", password: ROOT_PASSWORD })).status,
      429,
    );
    t.clock.advance(15 * 60_000);
    equal(
      (await t.client("10.0.0.2").post("/api/auth/login", { username: "root", password: ROOT_PASSWORD })).status,
      200,
    );

    // Per address: many names from one address.
    const sprayer = t.client("10.9.9.9");
    for (let i = 0; i < 30; i++) await sprayer.post("/api/auth/login", { username: `user${i}`, password: "password1" });
    equal((await sprayer.post("/api/auth/login", { username: "root", password: ROOT_PASSWORD })).status, 429);
    equal(
      (await t.client("10.9.9.8").post("/api/auth/login", { username: "root", password: ROOT_PASSWORD })).status,
      200,
    );
  } finally {
    await t.close();
  }
});

Deno.test("CSRF: cookie-authenticated writes need the X-CSRF-Token header and a same-site origin", async () => {
  const t = await startTestAccounts({ allowedOrigins: ["https://panel.example"] });
  try {
    const c = await t.login("root", ROOT_PASSWORD);
    const body = { name: "mods", permissions: 2 };
    const none = await c.post("/api/auth/groups", body, { csrf: false });
    equal(none.status, 403);
    equal((none.body as { code: string }).code, "csrf_failed");
    equal((await c.post("/api/auth/groups", body, { csrf: "A".repeat(43) })).status, 403);
    const evil = await c.post("/api/auth/groups", body, { origin: "https://evil.example" });
    equal((evil.body as { code: string }).code, "cross_origin");
    const fetchSite = await c.post("/api/auth/groups", body, { headers: { "sec-fetch-site": "cross-site" } });
    equal(fetchSite.status, 403);
    // A token from another session does not fit this one.
    const other = await t.login("root", ROOT_PASSWORD);
    equal((await c.post("/api/auth/groups", body, { csrf: other.csrf! })).status, 403);
    equal(((await c.get("/api/auth/groups")).body as unknown[]).length, 3, "nothing was created meanwhile");
    // Same origin and the configured origin pass, with CORS headers for the latter.
    equal((await c.post("/api/auth/groups", body, { origin: "http://accounts.test" })).status, 201);
    const cross = await c.post("/api/auth/groups", { name: "mods2", permissions: 0 }, {
      origin: "https://panel.example",
    });
    equal(cross.status, 201);
    equal(cross.headers.get("access-control-allow-origin"), "https://panel.example");
    equal(cross.headers.get("access-control-allow-credentials"), "true");
    const pre = await c.raw("OPTIONS", "/api/auth/groups", undefined, { origin: "https://panel.example" });
    equal(pre.status, 204);
    match(pre.headers.get("access-control-allow-headers") ?? "", /X-CSRF-Token/);
    const preEvil = await c.raw("OPTIONS", "/api/auth/groups", undefined, { origin: "https://evil.example" });
    equal(preEvil.headers.get("access-control-allow-origin"), null);
    // Login from another site is refused too (login CSRF); reads are not affected.
    const forced = await t.client().post("/api/auth/login", { username: "root", password: ROOT_PASSWORD }, {
      origin: "https://evil.example",
    });
    equal(forced.status, 403);
    equal((await c.get("/api/auth/me", { origin: "https://evil.example" })).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("cookies get Secure when configured, or behind https with cookie_secure auto", async () => {
  const always = await startTestAccounts({ cookieSecure: "always" });
  try {
    const res = await always.client().raw("POST", "/api/auth/login", { username: "root", password: ROOT_PASSWORD });
    await res.body?.cancel();
    for (const cookie of res.headers.getSetCookie()) match(cookie, /; Secure$/);
  } finally {
    await always.close();
  }
  const auto = await startTestAccounts();
  try {
    const req = (secure: boolean) =>
      auto.service.fetch(
        new Request("http://accounts.test/api/auth/login", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username: "root", password: ROOT_PASSWORD }),
        }),
        "127.0.0.1",
        secure,
      );
    const plain = await req(false);
    await plain.body?.cancel();
    ok(plain.headers.getSetCookie().every((c) => !c.includes("Secure")));
    const https = await req(true);
    await https.body?.cancel();
    ok(https.headers.getSetCookie().every((c) => c.endsWith("; Secure")));
  } finally {
    await auto.close();
  }
});

Deno.test("errors: one envelope for unknown routes, and a failing store is a 500 without its exception text", async () => {
  const t = await startTestAccounts();
  try {
    const c = await t.login("root", ROOT_PASSWORD);
    deepEqual((await c.get("/api/nothing")).body, {
      error: "no route GET /api/nothing",
      code: "not_found",
      status: 404,
    });
    await t.service.ctx.store.db.close();
    const broken = await c.get("/api/auth/users");
    deepEqual(broken.body, { error: "internal error", code: "internal_error", status: 500 });
    ok(!JSON.stringify(broken.body).includes("closed"));
  } finally {
    await t.close().catch(() => {});
  }
});
