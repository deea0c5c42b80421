import { deepEqual, equal, throws } from "node:assert/strict";
import { BuiltinRoutes } from "./builtin_routes.ts";
import { normalizeRoutePath, RouteRegistry } from "./route_registry.ts";

/** Some built-in routes of the HTTP app, in its order (the app passes its own, read from itself). */
const BUILTINS = new BuiltinRoutes([
  "/api/rooms/info",
  "/api/rooms/listen",
  "/api/rooms",
  "/api/rooms/:name",
  "/admin/**",
]);

const ok = (value: unknown) => () => ({ ok: true as const, value });

Deno.test("normalizeRoutePath adds the leading slash and writes every parameter style as :name", () => {
  equal(normalizeRoutePath("api/x"), "/api/x");
  equal(normalizeRoutePath("/api/{a}/<b>/:c"), "/api/:a/:b/:c");
  for (const bad of ["", "/", " ", "/a?b", "/a#b", "/a b", "/a/{b", "/a/x:y"]) {
    throws(() => normalizeRoutePath(bad), RangeError, bad);
  }
});

Deno.test("RouteRegistry matches literals before parameters and decodes parameters", () => {
  const r = new RouteRegistry();
  r.register("/p/:kind/list", ok("param"));
  r.register("/p/rooms/list", ok("literal"));
  r.register("/p/rooms/:id", ok("id"));
  equal(r.match("/p/rooms/list")?.route.pattern, "/p/rooms/list");
  equal(r.match("/p/users/list")?.route.pattern, "/p/:kind/list");
  deepEqual(r.match("/p/rooms/a%2Fb")?.params, ["a/b"]);
  deepEqual(r.match("/p/rooms/x")?.named, { id: "x" });
  equal(r.match("/p/rooms/"), null);
  equal(r.match("/p/rooms"), null);
  equal(r.match("/p/rooms/x/y"), null);
});

Deno.test("RouteRegistry replaces the same path, removes by path or owner, and is bounded", () => {
  const r = new RouteRegistry(2);
  r.register("/a/:x", ok(1), "p1");
  r.register("a/{y}", ok(2), "p2");
  deepEqual(r.list().map((x) => [x.pattern, x.owner]), [["/a/:y", "p2"]]);
  r.register("/b", ok(3), "p2");
  throws(() => r.register("/c", ok(4)), /limit of 2 routes/);
  r.register("/b", ok(5), "p1");
  equal(r.unregister("/a/<z>"), true);
  equal(r.unregister("/a/<z>"), false);
  equal(r.unregisterOwner("p1"), 1);
  deepEqual(r.list(), []);
});

Deno.test("RouteRegistry refuses a path a built-in route answers in full", () => {
  const r = new RouteRegistry(1024, BUILTINS);
  throws(() => r.register("/api/rooms/leaderboard", ok(1)), {
    name: "RangeError",
    message:
      'Cannot register route "/api/rooms/leaderboard": the built-in route "/api/rooms/:name" answers that path first',
  });
  throws(() => r.register("api/rooms/{room}", ok(1)), /"\/api\/rooms\/:name"/);
  throws(() => r.register("/api/rooms/listen", ok(1)), /"\/api\/rooms\/listen"/);
  throws(() => r.register("/admin/api/x", ok(1)), /"\/admin\/\*\*"/);
  equal(r.list().length, 0);
  // A pattern only partly answered by built-ins is accepted.
  equal(r.register("/api/rooms/:room/leaderboard", ok(2)), "/api/rooms/:room/leaderboard");
  // A registry built with no built-ins (a plugin host's own listener) accepts anything.
  equal(new RouteRegistry(8).register("/api/rooms/leaderboard", ok(3)), "/api/rooms/leaderboard");
});

Deno.test("RouteRegistry drops routes that built-ins set later shadow, and says which", () => {
  const r = new RouteRegistry();
  r.register("/api/rooms/leaderboard", ok(1));
  r.register("/api/rooms/:room/top", ok(2));
  deepEqual(r.setBuiltins(BUILTINS), ["/api/rooms/leaderboard"]);
  deepEqual(r.list().map((x) => x.pattern), ["/api/rooms/:room/top"]);
});
