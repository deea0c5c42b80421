import { deepEqual, throws } from "node:assert/strict";
import * as z from "../util/zod.ts";
import { namedArgs } from "./args.ts";
import { defineOp } from "./op.ts";

const setHost = defineOp({
  name: "room.set_host",
  summary: "",
  permission: "room.manage",
  params: { room_id: z.string(), host_id: z.optional(z.union([z.number(), z.null()])) },
  run: () => null,
});
const list = defineOp({
  name: "room.list",
  summary: "",
  permission: "state.read",
  params: { filters: z.optional(z.object({ state: z.optional(z.string()) })), detail: z.optional(z.boolean()) },
  run: () => null,
});
const unban = defineOp({
  name: "player.unban",
  summary: "",
  permission: "admin",
  params: { user_id: z.number(), reason: z.optional(z.string()) },
  run: () => null,
});

Deno.test("namedArgs maps positional values onto the parameters in declared order", () => {
  deepEqual(namedArgs(setHost, ["lobby", 5]), { room_id: "lobby", host_id: 5 });
  deepEqual(namedArgs(setHost, ["lobby"]), { room_id: "lobby" });
  deepEqual(namedArgs(setHost, undefined), {});
  deepEqual(namedArgs(setHost, null), {});
  deepEqual(namedArgs(setHost, { room_id: "x" }), { room_id: "x" }, "the named form passes through");
});

Deno.test("namedArgs: null is kept where the parameter takes null, else it is an absent option (WIT none)", () => {
  deepEqual(namedArgs(setHost, ["lobby", null]), { room_id: "lobby", host_id: null });
  deepEqual(namedArgs(unban, [7, null]), { user_id: 7 });
});

Deno.test("namedArgs: a lone object of parameter names is the named form, else a positional value", () => {
  deepEqual(namedArgs(list, [{ detail: true }]), { detail: true });
  deepEqual(namedArgs(list, [{ state: "Playing" }]), { filters: { state: "Playing" } });
  deepEqual(namedArgs(list, [{}]), {});
  throws(() => namedArgs(unban, [1, "r", 3]), /player.unban takes at most 2 argument\(s\) \(user_id, reason\), got 3/);
});
