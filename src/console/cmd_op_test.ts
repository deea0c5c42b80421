import { deepEqual, throws } from "node:assert/strict";
import * as z from "../util/zod.ts";
import { defineOp, type Operation, p } from "../ops/mod.ts";
import { jsonLines, opArgs } from "./cmd_op.ts";

const setHost = defineOp({
  name: "room.set_host",
  summary: "",
  permission: "room.manage",
  params: { room_id: p.roomId(), host_id: z.optional(z.union([p.userId(), z.literal("system"), z.null()])) },
  run: () => null,
}) as Operation<never>;
const idSet = defineOp({
  name: "admin.id_set",
  summary: "",
  permission: "admin",
  params: { user_ids: z.array(p.userId()), note: z.optional(z.string()) },
  run: () => null,
}) as Operation<never>;

Deno.test("op arguments: words are JSON when the parameter takes it, else text", () => {
  deepEqual(opArgs(setHost, ["123", "5"]), { room_id: "123", host_id: 5 });
  deepEqual(opArgs(setHost, ["lobby", "system"]), { room_id: "lobby", host_id: "system" });
  deepEqual(opArgs(setHost, ["host_id=null", "lobby"]), { room_id: "lobby", host_id: null });
  deepEqual(opArgs(idSet, ["user_ids=[1,2]", "note=hello world"]), { user_ids: [1, 2], note: "hello world" });
  // A value the parameter refuses either way is passed as JSON, for validation to name the problem.
  deepEqual(opArgs(setHost, ["lobby", "true"]), { room_id: "lobby", host_id: true });
});

Deno.test("op arguments: one JSON object or array is the arguments; extra words are refused", () => {
  deepEqual(opArgs(setHost, ['{"room_id":"a","host_id":3}']), { room_id: "a", host_id: 3 });
  deepEqual(opArgs(setHost, ['["a",3]']), ["a", 3]);
  deepEqual(opArgs(setHost, []), {});
  throws(() => opArgs(setHost, ["{oops"]), /invalid JSON arguments/);
  throws(() => opArgs(setHost, ["a", "1", "2"]), /unexpected argument "2"/);
});

Deno.test("op results as lines", () => {
  deepEqual(jsonLines(null), ["ok"]);
  deepEqual(jsonLines(true), ["true"]);
  deepEqual(jsonLines({ a: 1 }), ["{", '  "a": 1', "}"]);
});
