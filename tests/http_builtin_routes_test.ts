import { deepEqual, equal, ok } from "node:assert/strict";
import type { Hono } from "hono";
import { builtinRoutesOf } from "../src/http/builtin_routes.ts";
import { startHttpHarness } from "./support/http.ts";

Deno.test("the built-in routes are read from the app: each names the one that answers every path of a pattern", async (t) => {
  const h = await startHttpHarness();
  const builtins = builtinRoutesOf(h.http.app as unknown as Hono<never>);
  for (const path of ["/health/ready", "/api/rooms", "/api/rooms/:name", "/admin/api/state", "/admin/**"]) {
    ok(builtins.patterns.includes(path), `${path} in ${builtins.patterns.join(" ")}`);
  }
  equal(builtins.patterns.includes("/*"), false, "middleware and the plugin catch-all are not built-in routes");
  const cases: [string, string | null][] = [
    ["/api/rooms", "/api/rooms"],
    ["/api/rooms/leaderboard", "/api/rooms/:name"],
    ["/api/rooms/user", "/api/rooms/:name"],
    ["/api/rooms/listen", "/api/rooms/listen"],
    ["/api/rooms/:room", "/api/rooms/:name"],
    ["/api/rooms/info/:x", "/api/rooms/info/:name"],
    ["/api/events", "/api/events"],
    ["/health/ready", "/health/ready"],
    ["/admin", "/admin"],
    ["/admin/api/plugin", "/admin/**"],
    ["/admin/:x/y", "/admin/**"],
    // Partly overlapping patterns stay allowed: only some of their paths are built-in.
    ["/api/rooms/:room/leaderboard", null],
    ["/api/:kind/list", null],
    ["/health/:probe", null],
    ["/:x", null],
    ["/api/hello/:name", null],
    ["/api/rooms/abc/extra/more", null],
    ["/administrator", null],
  ];
  for (const [pattern, builtin] of cases) {
    await t.step(pattern, () => equal(builtins.shadowing(pattern), builtin));
  }
  // The profile R stream is itself a registered stream (spec 1 §4.3 rule 3): a plugin stream may replace it.
  equal(builtins.without("/api/rooms/listen").shadowing("/api/rooms/listen"), null);
  // The admin panel's namespace is a built-in route of its own: anything else under /admin is not found.
  const missing = await h.json("/admin/nothing-here");
  deepEqual([missing.status, missing.body], [404, { error: "route not found: /admin/nothing-here", code: 404 }]);
  await h.close();
});
