import { deepEqual, equal } from "node:assert/strict";
import { Hono } from "hono";
import { BuiltinRoutes, builtinRoutesOf } from "./builtin_routes.ts";

Deno.test("builtinRoutesOf reads routes with a method in order; middleware and catch-alls are not routes", () => {
  const app = new Hono();
  app.use("*", (_c, next) => next());
  app.get("/a/info", (c) => c.text("info"));
  app.get("/a/:name", (c) => c.text("name"));
  app.post("/b", (c) => c.text("b"));
  app.get("/c/*", (c) => c.text("c"));
  app.all("*", (c) => c.text("plugins"));
  const b = builtinRoutesOf(app as unknown as Hono<never>);
  deepEqual(b.patterns, ["/a/info", "/a/:name", "/b", "/c/**"]);
  // `info` is answered by the earlier literal, so `/a/:name` does not shadow a plugin's `/a/info/…` sibling.
  equal(b.shadowing("/a/info"), "/a/info");
  equal(b.shadowing("/a/other"), "/a/:name");
  equal(b.shadowing("/c/x/y"), "/c/**");
  equal(b.shadowing("/c"), null);
  equal(b.without("/a/info").shadowing("/a/info"), null, "a left-out route still takes its value from /a/:name");
});

Deno.test("BuiltinRoutes with no routes shadows nothing", () => {
  equal(new BuiltinRoutes([]).shadowing("/api/rooms"), null);
});
