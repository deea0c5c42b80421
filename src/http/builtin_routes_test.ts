import { equal } from "node:assert/strict";
import { shadowingBuiltin } from "./builtin_routes.ts";

Deno.test("shadowingBuiltin names the built-in that answers every path of a pattern", async (t) => {
  const cases: [string, string | null][] = [
    ["/api/rooms", "/api/rooms"],
    ["/api/rooms/leaderboard", "/api/rooms/:name"],
    ["/api/rooms/user", "/api/rooms/:name"],
    ["/api/rooms/listen", null],
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
    await t.step(pattern, () => equal(shadowingBuiltin(pattern), builtin));
  }
});
