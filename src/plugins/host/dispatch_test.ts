import { deepEqual, equal } from "node:assert/strict";
import { OpsError } from "../../ops/mod.ts";
import type { Capability } from "../../ops/mod.ts";
import { ManualClock } from "../../util/clock.ts";
import { memoryLogHub } from "../../util/log.ts";
import type { PluginFacilities } from "../facilities.ts";
import { dispatch, FUNCTION_COUNT, interfaceOf, lookup, missingImports } from "./dispatch.ts";
import type { HostContext } from "./table.ts";

function context(capabilities: Capability[], op: (name: string, args: unknown) => unknown): HostContext {
  return {
    id: "p",
    actor: { kind: "plugin", id: "p", capabilities },
    has: (c) => capabilities.includes(c),
    op: async (name, args) => await op(name, args),
    clock: new ManualClock(),
    log: memoryLogHub().logger(),
    facilities: {} as PluginFacilities,
  };
}

Deno.test("the host provides all 72 functions of the world, under both spellings", () => {
  equal(FUNCTION_COUNT, 72);
  equal(interfaceOf("phira:plugin/phira-room-mgmt"), "room-mgmt");
  equal(interfaceOf("game:plugin/game-room-mgmt@0.3.0"), "room-mgmt");
  equal(interfaceOf("wasi:cli/stdout"), null);
  equal(
    lookup("game:plugin/game-room-mgmt", "setRoomGameApiEndpoint"),
    lookup("phira:plugin/phira-room-mgmt", "setRoomPhiraApiEndpoint"),
  );
  deepEqual(missingImports({ "phira:plugin/phira-host": ["log", "teleport"], "wasi:io/streams": ["read"] }), [
    "phira:plugin/phira-host#teleport",
    "wasi:io/streams#read",
  ]);
});

Deno.test("a missing capability answers each function's error case, never a trap", async () => {
  const calls: string[] = [];
  const ctx = context(["state.read"], (name) => calls.push(name));
  const refused: string[] = [];
  const onRefused = (fn: string) => refused.push(fn);
  deepEqual(await dispatch(ctx, "phira:plugin/phira-user-mgmt", "kickUser", [5, "x"], onRefused), {
    v: {
      tag: "error",
      val: 'plugin p lacks the capability "admin" needed by phira-user-mgmt.kickUser (grant it in p.capabilities.json)',
    },
  });
  equal(
    (await dispatch(ctx, "phira:plugin/phira-timer", "setTimer", [1n, "t"], onRefused)).e?.includes('"timer"'),
    true,
  );
  deepEqual(await dispatch(ctx, "phira:plugin/phira-user-mgmt", "isBanned", [5], onRefused), { v: false });
  deepEqual(await dispatch(ctx, "phira:plugin/phira-host", "httpRequest", ["http://x", "GET", [], []], onRefused), {
    e: 'plugin p lacks the capability "http" needed by phira-host.httpRequest (grant it in p.capabilities.json)',
  });
  deepEqual(calls, [], "nothing ran");
  equal(refused.length, 4);
});

Deno.test("functions call their operation as the plugin and shape the answer", async () => {
  const seen: [string, unknown][] = [];
  const ctx = context(["state.read", "room.manage", "send"], (name, args) => {
    seen.push([name, args]);
    if (name === "room.lock") throw new OpsError("ROOM_NOT_FOUND", "room not found: x");
    if (name === "user.is_online") return true;
    return { rooms: [{ room_id: "a" }] };
  });
  deepEqual(await dispatch(ctx, "phira:plugin/phira-room-mgmt", "setRoomLock", ["x", true], () => {}), {
    v: { tag: "error", val: "room not found: x" },
  });
  deepEqual(await dispatch(ctx, "phira:plugin/phira-query", "isUserOnline", [5], () => {}), { v: true });
  deepEqual(await dispatch(ctx, "phira:plugin/phira-room-state", "listRooms", [], () => {}), { v: ["a"] });
  deepEqual(await dispatch(ctx, "phira:plugin/phira-room-mgmt", "setHost", ["x", undefined], () => {}), {
    v: { tag: "ok", val: { tag: "object", val: '{"rooms":[{"room_id":"a"}]}' } },
  });
  deepEqual(
    await dispatch(ctx, "phira:plugin/phira-host", "apiCall", ["rooms.list", [{ tag: "array", val: "x" }]], () => {}),
    {
      v: { tag: "error", val: "argument 1: Cannot read a json-value: its array case does not hold JSON text" },
    },
  );
  deepEqual(seen, [
    ["room.lock", { room_id: "x", locked: true }],
    ["user.is_online", { user_id: 5 }],
    ["room.list", {}],
    ["room.set_host", { room_id: "x", host_id: null }],
  ]);
});
