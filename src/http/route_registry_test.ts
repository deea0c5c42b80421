import { deepEqual, equal, throws } from "node:assert/strict";
import { normalizeRoutePath, RouteRegistry } from "./route_registry.ts";

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
  r.register("/api/:kind/list", ok("param"));
  r.register("/api/rooms/list", ok("literal"));
  r.register("/api/rooms/:id", ok("id"));
  equal(r.match("/api/rooms/list")?.route.pattern, "/api/rooms/list");
  equal(r.match("/api/users/list")?.route.pattern, "/api/:kind/list");
  deepEqual(r.match("/api/rooms/a%2Fb")?.params, ["a/b"]);
  deepEqual(r.match("/api/rooms/x")?.named, { id: "x" });
  equal(r.match("/api/rooms/"), null);
  equal(r.match("/api/rooms"), null);
  equal(r.match("/api/rooms/x/y"), null);
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
