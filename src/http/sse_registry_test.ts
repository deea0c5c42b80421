import { deepEqual, equal, throws } from "node:assert/strict";
import { BuiltinRoutes } from "./builtin_routes.ts";
import { resolveEventName, SseRegistry } from "./sse_registry.ts";

Deno.test("resolveEventName ignores case and punctuation and knows the legacy spellings", () => {
  equal(resolveEventName("create_room"), "create_room");
  equal(resolveEventName("CreateRoom"), "create_room");
  equal(resolveEventName("RoomCreate"), "create_room");
  equal(resolveEventName("round-complete"), "new_round");
  throws(() => resolveEventName("chat"), /Cannot filter on event type "chat"/);
});

Deno.test("SseRegistry registers, replaces, filters and removes streams", () => {
  const r = new SseRegistry(2);
  const translate = () => null;
  equal(r.register({ path: "x/stream", events: [], translate }), "/x/stream");
  const s = r.get("/x/stream")!;
  deepEqual([s.events, s.ready, s.keepAlive, s.owner], [null, true, "comment", "plugin"]);
  r.register({ path: "/x/stream", events: ["JoinRoom", "leave_room"], translate, owner: "p", ready: false });
  deepEqual([...r.get("/x/stream")!.events!], ["join_room", "leave_room"]);
  equal(r.list().length, 1);
  r.register({ path: "/y", events: [], translate, owner: "p", keepAlive: "event" });
  throws(() => r.register({ path: "/z", events: [], translate }), /limit of 2 streams/);
  throws(() => r.register({ path: "/x/:id", events: [], translate }), /no path parameters/);
  equal(r.unregisterOwner("p"), 2);
  equal(r.unregister("/y"), false);
});

Deno.test("SseRegistry refuses paths a built-in route answers, except the profile R stream", () => {
  // What the HTTP app passes: its routes without the profile R stream, which a plugin may replace.
  const builtins = new BuiltinRoutes([
    "/api/events",
    "/api/rooms/info",
    "/api/rooms/listen",
    "/api/rooms/:name",
    "/admin/**",
  ])
    .without("/api/rooms/listen");
  const r = new SseRegistry(256, builtins);
  const translate = () => null;
  throws(
    () => r.register({ path: "/api/events", events: [], translate }),
    {
      name: "RangeError",
      message: 'Cannot register stream "/api/events": the built-in route "/api/events" answers that path first',
    },
  );
  throws(() => r.register({ path: "api/rooms/leaderboard", events: [], translate }), /"\/api\/rooms\/:name"/);
  throws(() => r.register({ path: "/admin/stream", events: [], translate }), /"\/admin\/\*\*"/);
  equal(r.register({ path: "/api/rooms/listen", events: [], translate }), "/api/rooms/listen");
  equal(r.list().length, 1);
});
