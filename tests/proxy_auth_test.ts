/**
 * Login, profile and CORS of the monitor proxy (spec 1 §2.2, §2.4 rule 1,
 * §4.1, §5; extended.md §5.4, §5.7): `POST /auth/login` forwarded to the
 * game API and answered with a session token (HS256 with the key derived
 * for `jwt`, expiring with the game token), `GET /auth/me` (cached profile),
 * every refusal's status and body, and the CORS headers in production and
 * debug mode.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { decodeJwt, jwtVerify } from "jose";
import { KEY_INFOS } from "../src/proxy/mod.ts";
import { deriveKey } from "../src/net/mod.ts";
import { DEV_PASSWORD, devEmail, devToken } from "../src/upstream/mod.ts";
import { ALLOWED_ORIGIN, PROXY_SECRET, type ProxyHarness, startProxyHarness } from "./support/proxy.ts";

async function login(h: ProxyHarness, email: string, password: string) {
  return await h.json("/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
}

/** Runs `p` while moving the shared clock (upstream retries back off on it). */
async function drive<T>(h: ProxyHarness, p: Promise<T>): Promise<T> {
  let done = false;
  const settled = p.finally(() => (done = true));
  for (let i = 0; i < 400 && !done; i++) await h.advance(50);
  return await settled;
}

function bearer(token: string): RequestInit {
  return { headers: { authorization: `Bearer ${token}` } };
}

Deno.test("proxy POST /auth/login answers a session token signed with the jwt key, expiring with the game token", async () => {
  const h = await startProxyHarness();
  try {
    const res = await login(h, devEmail(9), DEV_PASSWORD);
    equal(res.status, 200);
    const { token } = res.body as { token: string };
    deepEqual(Object.keys(res.body as object), ["token"]);
    const key = await deriveKey(PROXY_SECRET, KEY_INFOS.jwt, 64);
    const { payload, protectedHeader } = await jwtVerify(token, key, { currentDate: new Date(h.clock.now()) });
    deepEqual(protectedHeader, { alg: "HS256", typ: "JWT" });
    equal(payload.id, 9);
    equal(payload.sub, "9");
    // The development API's tokens live 30 days.
    equal(payload.exp, Math.floor((h.clock.now() + 30 * 86_400_000) / 1000));
    equal(token.includes(devToken(9)), false);
    const upstream = h.dev.state.requests.filter((r) => r.endpoint === "login");
    equal(upstream.length, 1);
  } finally {
    await h.close();
  }
});

Deno.test("proxy POST /auth/login refusals: credentials, body, content type, size, game API failures", async () => {
  const h = await startProxyHarness();
  try {
    const cases: [string, RequestInit, number, string][] = [
      ["wrong password", jsonBody({ email: devEmail(9), password: "nope" }), 401, "invalid email or password"],
      ["missing password", jsonBody({ email: devEmail(9) }), 400, "email and password are required strings"],
      ["number email", jsonBody({ email: 9, password: "x" }), 400, "email and password are required strings"],
      [
        "not JSON",
        { method: "POST", headers: { "content-type": "application/json" }, body: "{" },
        400,
        "invalid JSON body",
      ],
      [
        "form body",
        { method: "POST", body: new URLSearchParams({ email: "a", password: "b" }) },
        415,
        "expected a JSON body (Content-Type: application/json)",
      ],
      ["too long", jsonBody({ email: "a".repeat(400), password: "b" }), 400, "email or password too long"],
      ["huge", jsonBody({ email: "a", password: "b".repeat(20_000) }), 413, "request body too large"],
      [
        "huge without a length (chunked)",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: ReadableStream.from([new TextEncoder().encode(`{"email":"a","password":"${"b".repeat(20_000)}"}`)]),
          duplex: "half",
        } as RequestInit,
        413,
        "request body too large",
      ],
    ];
    for (const [name, init, status, error] of cases) {
      const res = await h.json("/auth/login", init);
      deepEqual([name, res.status, res.body], [name, status, { error, code: status }]);
    }
    equal(
      (await h.json("/auth/login", jsonBody({ email: devEmail(9), password: "nope" }))).headers.get("www-authenticate"),
      'Bearer realm="chorus-proxy"',
    );
    equal((await h.json("/auth/login")).status, 404, "GET is not a route");

    h.dev.state.setFault("login", { status: 503 });
    const down = await drive(h, login(h, devEmail(9), DEV_PASSWORD));
    equal(down.status, 502);
    ok((down.body as { error: string }).error.startsWith("cannot reach the game API: "), JSON.stringify(down.body));
    h.dev.state.setFault("login", { status: 429 });
    deepEqual((await drive(h, login(h, devEmail(9), DEV_PASSWORD))).body, {
      error: "the game API is busy; try again later",
      code: 429,
    });
    h.dev.state.setFault("login", {
      body: { id: 9, token: devToken(9), expireAt: new Date(h.clock.now() - 1000).toISOString() },
    });
    deepEqual((await login(h, devEmail(9), DEV_PASSWORD)).body, {
      error: "the game API returned an expired token",
      code: 502,
    });
  } finally {
    await h.close({ allowViolations: true });
  }
});

function jsonBody(body: unknown): RequestInit {
  return { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

Deno.test("proxy GET /auth/me: the game profile (ProfileResponse), cached; 401 for every bad token", async () => {
  const h = await startProxyHarness();
  try {
    const { token } = (await login(h, devEmail(9), DEV_PASSWORD)).body as { token: string };
    const before = h.dev.state.requests.filter((r) => r.endpoint === "me").length;
    const me = await h.json("/auth/me", bearer(token));
    equal(me.status, 200);
    deepEqual(me.body, {
      id: 9,
      username: "Player9",
      game_avatar: null,
      game_id: 9,
      game_rks: 0,
      game_username: "Player9",
      register_time: "2024-01-01T00:00:00.000Z",
      last_login_time: new Date(h.clock.now()).toISOString(),
    });
    equal((await h.json("/auth/me", bearer(token))).status, 200);
    equal(h.dev.state.requests.filter((r) => r.endpoint === "me").length, before + 1, "second answer from the cache");

    const claims = decodeJwt(token);
    const [head, , sig] = token.split(".");
    const forged = `${head}.${btoa(JSON.stringify({ ...claims, id: 1, sub: "1" })).replace(/=+$/, "")}.${sig}`;
    const cases: [string, RequestInit, string][] = [
      ["no header", {}, "missing Authorization header"],
      [
        "basic",
        { headers: { authorization: "Basic YTpi" } },
        "invalid Authorization header (expected: Bearer <token>)",
      ],
      ["garbage", bearer("abc"), "invalid token"],
      ["forged payload", bearer(forged), "invalid token"],
      ["token in the query is for WebSockets only", {}, "missing Authorization header"],
    ];
    for (const [name, init, error] of cases) {
      const path = name.startsWith("token in the query") ? `/auth/me?token=${token}` : "/auth/me";
      const res = await h.json(path, init);
      deepEqual([name, res.status, res.body], [name, 401, { error, code: 401 }]);
    }
  } finally {
    await h.close();
  }
});

Deno.test("proxy session tokens expire with the game token; a revoked game token ends the session", async () => {
  const h = await startProxyHarness();
  try {
    h.dev.state.setFault("login", {
      times: 1,
      body: { id: 9, token: devToken(9), expireAt: new Date(h.clock.now() + 60_000).toISOString() },
    });
    const { token } = (await login(h, devEmail(9), DEV_PASSWORD)).body as { token: string };
    equal(decodeJwt(token).exp, Math.floor((h.clock.now() + 60_000) / 1000));
    equal((await h.json("/auth/me", bearer(token))).status, 200);
    for (let t = 0; t < 60; t++) await h.advance(1000);
    deepEqual((await h.json("/auth/me", bearer(token))).body, { error: "token expired; log in again", code: 401 });

    const fresh = ((await login(h, devEmail(10), DEV_PASSWORD)).body as { token: string }).token;
    h.dev.state.setFault("me", { status: 401 });
    deepEqual((await h.json("/auth/me", bearer(fresh))).body, {
      error: "the game account session ended; log in again",
      code: 401,
    });
    h.dev.state.setFault("me", { status: 500 });
    const down = await drive(h, h.json("/auth/me", bearer(fresh)));
    equal(down.status, 502);
  } finally {
    await h.close({ allowViolations: true });
  }
});

Deno.test("proxy CORS (spec 1 §2.4 rule 1, extended.md §5.7): exactly the allowed origin, with credentials", async () => {
  const h = await startProxyHarness();
  try {
    const allowed = await fetch(`${h.url}/rooms/info`, { headers: { origin: ALLOWED_ORIGIN } });
    equal(allowed.headers.get("access-control-allow-origin"), ALLOWED_ORIGIN);
    equal(allowed.headers.get("access-control-allow-credentials"), "true");
    ok(allowed.headers.get("vary")?.includes("Origin"));
    await allowed.body?.cancel();
    const other = await fetch(`${h.url}/rooms/info`, { headers: { origin: "https://evil.example" } });
    equal(other.headers.get("access-control-allow-origin"), null);
    await other.body?.cancel();
    const none = await fetch(`${h.url}/rooms/info`);
    equal(none.headers.get("access-control-allow-origin"), null);
    await none.body?.cancel();
    const preflight = await fetch(`${h.url}/auth/login`, {
      method: "OPTIONS",
      headers: {
        origin: ALLOWED_ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, authorization",
      },
    });
    equal(preflight.status, 204);
    equal(preflight.headers.get("access-control-allow-origin"), ALLOWED_ORIGIN);
    equal(preflight.headers.get("access-control-allow-methods"), "GET,POST,OPTIONS");
    equal(preflight.headers.get("access-control-allow-headers"), "Content-Type,Authorization");
    equal(preflight.headers.get("access-control-allow-credentials"), "true");
    equal(preflight.headers.get("access-control-max-age"), "600");
    await preflight.body?.cancel();
    // Errors carry the headers too, so the page can read them.
    const error = await fetch(`${h.url}/rooms/info/nope`, { headers: { origin: ALLOWED_ORIGIN } });
    equal(error.status, 404);
    equal(error.headers.get("access-control-allow-origin"), ALLOWED_ORIGIN);
    await error.body?.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("proxy CORS in --debug mirrors any origin, with credentials", async () => {
  const h = await startProxyHarness({ proxy: { debug: true, allowedOrigins: [] } });
  try {
    for (const origin of ["http://localhost:5173", "https://anything.example"]) {
      const res = await fetch(`${h.url}/rooms/info`, { headers: { origin } });
      equal(res.headers.get("access-control-allow-origin"), origin);
      equal(res.headers.get("access-control-allow-credentials"), "true");
      await res.body?.cancel();
    }
  } finally {
    await h.close();
  }
});
