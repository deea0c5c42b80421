import { equal } from "node:assert/strict";
import { type Actor, actorLabel, DEFAULT_CAPABILITIES, describeActor, permits } from "./actor.ts";

Deno.test("permits: people and in-process tools may do anything; plugins what their capabilities grant", () => {
  const people: Actor[] = [
    { kind: "console" },
    { kind: "in-game", userId: 1, name: "Op" },
    { kind: "openuds", session: "s" },
    { kind: "http-admin", ip: "::1" },
    { kind: "system", component: "benchmark" },
  ];
  for (const a of people) equal(permits(a, "operator") && permits(a, "admin"), true, a.kind);
  const plugin: Actor = { kind: "plugin", id: "p" };
  for (const c of DEFAULT_CAPABILITIES) equal(permits(plugin, c), true, c);
  equal(permits(plugin, "room.manage"), false, "room.manage must be granted");
  equal(permits(plugin, "admin"), false);
  equal(permits({ kind: "plugin", id: "p", capabilities: ["admin"] }, "admin"), true);
  equal(permits({ kind: "plugin", id: "p", capabilities: ["admin"] }, "state.read"), false, "the grant is the list");
  equal(permits({ kind: "plugin", id: "p", capabilities: ["admin", "room.manage"] }, "operator"), false);
});

Deno.test("actor labels and descriptions", () => {
  equal(describeActor({ kind: "in-game", userId: 100, name: "Op" }), "in-game console (100)");
  equal(describeActor({ kind: "openuds", session: "abc" }), "openuds abc");
  equal(describeActor({ kind: "plugin", id: "weather" }), "plugin weather");
  equal(actorLabel({ kind: "http-admin", ip: "10.0.0.1" }).actor, "10.0.0.1");
});
