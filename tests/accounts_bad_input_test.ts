/**
 * Account backend: no input is a 500. Every route gets malformed bodies,
 * odd field values and odd path parameters, as an anonymous client and as
 * root; every answer must be a 2xx or a 4xx in the one error envelope.
 */
import { equal, ok } from "node:assert/strict";
import { SeededRandom } from "../src/util/random.ts";
import { ROOT_PASSWORD, startTestAccounts } from "./support/accounts.ts";

const ROUTES: [string, string][] = [
  ["POST", "/api/auth/login"],
  ["POST", "/api/auth/users"],
  ["PATCH", "/api/auth/users/2"],
  ["PATCH", "/api/auth/users/1"],
  ["DELETE", "/api/auth/users/3"],
  ["POST", "/api/auth/groups"],
  ["PATCH", "/api/auth/groups/3"],
  ["DELETE", "/api/auth/groups/9"],
  ["GET", "/api/auth/users/x"],
  ["GET", "/api/auth/groups/-1"],
  ["GET", "/api/rooms/info/%E2%82"],
  ["GET", "/api/rooms/user/99999999999"],
];

const FIELDS = [
  "username",
  "password",
  "remember",
  "current_password",
  "group_id",
  "game_id",
  "game_id_or_username",
  "name",
  "permissions",
];

const VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 53,
  1e308,
  "",
  " ",
  "x".repeat(300),
  "Ω≈ç√",
  "\u0000",
  "root",
  "password-123",
  "100",
  [],
  {},
  [1, 2],
  { $gt: "" },
];

function randomBody(r: SeededRandom): string {
  const pick = Math.floor(r.next() * 10);
  if (pick === 0) return "not json";
  if (pick === 1) return JSON.stringify(VALUES[Math.floor(r.next() * VALUES.length)]);
  const body: Record<string, unknown> = {};
  const n = 1 + Math.floor(r.next() * 4);
  for (let i = 0; i < n; i++) {
    body[FIELDS[Math.floor(r.next() * FIELDS.length)]!] = VALUES[Math.floor(r.next() * VALUES.length)];
  }
  return JSON.stringify(body);
}

Deno.test("no body, field value or path parameter makes a 500 or leaves the envelope", async () => {
  const t = await startTestAccounts();
  try {
    const root = await t.login("root", ROOT_PASSWORD);
    const anonymous = t.client();
    const r = new SeededRandom(2026);
    let checked = 0;
    for (let round = 0; round < 25; round++) {
      for (const [method, path] of ROUTES) {
        for (const client of [anonymous, root]) {
          const body = method === "GET" || method === "DELETE" ? undefined : randomBody(r);
          const res = await client.raw(method, path, body);
          // A registration that got through is a stream: close it.
          if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
            await res.body?.cancel();
            checked++;
            continue;
          }
          const text = await res.text();
          ok(res.status < 500, `${method} ${path} ${body} → ${res.status} ${text}`);
          if (res.status >= 400) {
            const e = JSON.parse(text) as { error?: unknown; code?: unknown; status?: unknown };
            equal(typeof e.error, "string");
            equal(typeof e.code, "string");
            equal(e.status, res.status);
          }
          checked++;
        }
      }
      // Root may have been renamed or re-passworded by a lucky body: log in again as needed.
      if ((await root.get("/api/auth/me")).status !== 200) break;
    }
    ok(checked > 100);
    equal((await t.client().get("/health/live")).status, 200);
  } finally {
    await t.close();
  }
});
