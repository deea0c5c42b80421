/**
 * The admin panel's own request code in process: the `api()` function of
 * `static/admin/admin.js` is taken from the file as it is and run against the
 * HTTP app, so a change to how the page builds requests (content type, body)
 * is tested against the server's CSRF guard without a browser.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { ADMIN_PASSWORD, type HttpHarness, startHttpHarness } from "./support/http.ts";

type Api = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** The source of `api()` in admin.js, unchanged. */
function apiSource(): string {
  const script = Deno.readTextFileSync(new URL("../static/admin/admin.js", import.meta.url));
  const start = script.indexOf("async function api(");
  ok(start >= 0, "admin.js defines api()");
  const end = script.indexOf("\n}\n", start);
  return script.slice(start, end + 2);
}

/**
 * Runs admin.js's `api()` with a `fetch` that sends what a same-origin page
 * would (the browser adds Origin, Sec-Fetch-Site and the cookie jar).
 */
function pageApi(h: HttpHarness, seen: { method: string; headers: Headers; body: string | null }[]) {
  let cookie = "";
  const loggedOut: string[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    headers.set("origin", "http://localhost");
    headers.set("sec-fetch-site", "same-origin");
    if (cookie) headers.set("cookie", cookie);
    seen.push({ method: init.method ?? "GET", headers, body: (init.body as string | undefined) ?? null });
    const res = await h.http.request(url, { ...init, headers });
    const set = res.headers.get("set-cookie");
    if (set) cookie = /Max-Age=0/.test(set) ? "" : set.split(";")[0]!;
    return res;
  };
  const api = new Function("fetch", "showLogin", `${apiSource()}\nreturn api;`)(
    fetch,
    () => loggedOut.push("login form"),
  ) as Api;
  return { api, cookie: () => cookie, loggedOut };
}

Deno.test("http admin.js api() sends JSON-typed POSTs without a body the server accepts (disband, logout)", async () => {
  const h = await startHttpHarness();
  try {
    const alice = await h.login(100);
    await alice.createRoom("stage");
    const seen: { method: string; headers: Headers; body: string | null }[] = [];
    const page = pageApi(h, seen);
    deepEqual(await page.api("POST", "login", { password: ADMIN_PASSWORD }), { ok: true });
    const session = page.cookie();
    ok(session.startsWith("chorus_admin="));

    // Exactly what the Disband button calls: no body argument.
    deepEqual(await page.api("POST", "rooms/stage/disband"), { ok: true });
    equal(h.server.core.rooms.has("stage"), false);
    const disband = seen.at(-1)!;
    equal(disband.headers.get("content-type"), "application/json");
    equal(disband.body, "{}");

    deepEqual(await page.api("POST", "bans", { user_id: 300 }), { ok: true });
    deepEqual(await page.api("DELETE", "bans/300"), { ok: true });
    equal(h.server.core.bans.userBans().length, 0);
    // GETs stay bodiless (a GET with a body is refused by fetch).
    equal(seen.find((r) => r.method === "GET"), undefined);
    await page.api("GET", "state");
    equal(seen.at(-1)!.body, null);

    // What the Log out button calls: no body argument either.
    deepEqual(await page.api("POST", "logout"), { ok: true });
    equal(page.cookie(), "");
    const old = await h.json("/admin/api/state", { headers: { cookie: session } });
    deepEqual(old.body, { error: "login required", code: 401 });
    await rejects(page.api("GET", "state"), /login required/);
    deepEqual(page.loggedOut, ["login form"]);

    // The CSRF guard is unchanged: a POST that is not JSON-typed is still refused.
    const plain = await h.json("/admin/api/logout", { method: "POST", headers: { cookie: session } });
    deepEqual(plain.body, { error: "expected Content-Type: application/json", code: 415 });
  } finally {
    await h.close();
  }
});
