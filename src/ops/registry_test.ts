import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import * as z from "../util/zod.ts";
import { LogHub, type LogRecord } from "../util/log.ts";
import type { Actor } from "./actor.ts";
import { OpsError } from "./errors.ts";
import { defineOp } from "./op.ts";
import { p } from "./params.ts";
import { Ops } from "./registry.ts";

type Ctx = { locks: Map<string, boolean>; shutdowns: string[] };

const CONSOLE: Actor = { kind: "console" };
const PLUGIN: Actor = { kind: "plugin", id: "weather" };
const ADMIN_PLUGIN: Actor = { kind: "plugin", id: "mod", capabilities: ["state.read", "room.manage"] };

function setup() {
  const records: LogRecord[] = [];
  const logs = new LogHub({ level: "debug", sink: () => {} });
  logs.subscribe((r) => records.push(r));
  let now = 1000;
  const ops = new Ops<Ctx>({
    context: { locks: new Map(), shutdowns: [] },
    now: () => now++,
    log: logs.logger(),
    auditCapacity: 3,
  });
  ops.register(defineOp<Ctx, { room_id: ReturnType<typeof p.roomId>; locked: ReturnType<typeof p.bool> }>({
    name: "room.lock",
    aliases: ["room.set_lock"],
    summary: "lock",
    permission: "room.manage",
    mutates: true,
    params: { room_id: p.roomId(), locked: p.bool() },
    run: (a, call) => {
      if (a.room_id === "gone") throw new OpsError("ROOM_NOT_FOUND", `room not found: ${a.room_id}`);
      call.context.locks.set(a.room_id, a.locked);
      return { room_id: a.room_id, locked: a.locked, as: call.calledAs };
    },
  }));
  ops.register(defineOp<Ctx>({
    name: "room.locks",
    summary: "read",
    permission: "state.read",
    run: (_a, call) => Object.fromEntries(call.context.locks),
  }));
  ops.register(defineOp<Ctx>({
    name: "server.stop",
    summary: "stop",
    permission: "operator",
    mutates: true,
    params: { reason: z.optional(z.string()) },
    run: (a, call) => {
      call.defer(() => call.context.shutdowns.push(a.reason ?? "none"));
      return { ok: true };
    },
  }));
  ops.register(defineOp<Ctx>({
    name: "boom",
    summary: "fails",
    permission: "state.read",
    mutates: true,
    run: () => {
      throw new Error("kaput");
    },
  }));
  return { ops, records };
}

Deno.test("Ops.call runs an operation by name or alias with named or positional arguments", async () => {
  const { ops } = setup();
  deepEqual(await ops.call("room.lock", { room_id: "abc", locked: true }, CONSOLE), {
    room_id: "abc",
    locked: true,
    as: "room.lock",
  });
  deepEqual(await ops.call("room.set_lock", ["xyz", false], ADMIN_PLUGIN), {
    room_id: "xyz",
    locked: false,
    as: "room.set_lock",
  });
  // A lone object whose keys are parameter names is the named form (the api-call convention).
  deepEqual(await ops.call("room.set_lock", [{ room_id: "k", locked: true }], CONSOLE), {
    room_id: "k",
    locked: true,
    as: "room.set_lock",
  });
  deepEqual(await ops.call("room.locks", undefined, PLUGIN), { abc: true, xyz: false, k: true });
});

Deno.test("Ops.call validates both argument forms with the OpenUDS wording and the issues", async () => {
  const { ops } = setup();
  const invalid = async (args: unknown, message: string, paths: string[]) => {
    const r = await ops.tryCall("room.lock", args, CONSOLE);
    ok(!r.ok);
    equal(r.error.code, "INVALID_ARGUMENT");
    equal(r.error.message, message);
    deepEqual(r.error.issues.map((i) => i.path), paths);
  };
  await invalid({}, "room_id: required; locked: required", ["room_id", "locked"]);
  await invalid(
    { room_id: "a b", locked: "yes" },
    [
      "room_id: expected a room id (1-20 letters, digits, - or _)",
      "locked: expected true or false",
    ].join("; "),
    ["room_id", "locked"],
  );
  await invalid(["abc"], "locked: required", ["locked"]);
  await invalid(["abc", 1], "locked: expected true or false", ["locked"]);
  // `null` in the positional form is an absent optional argument: here a required one.
  await invalid(["abc", null], "locked: required", ["locked"]);
  await invalid(["abc", true, "extra"], "room.lock takes at most 2 argument(s) (room_id, locked), got 3", [""]);
  await invalid("abc", "params: Invalid input: expected object, received string", [""]);
});

Deno.test("Ops.call refuses an actor without the permission, before validating", async () => {
  const { ops } = setup();
  const refused = await ops.tryCall("room.lock", {}, PLUGIN);
  ok(!refused.ok);
  deepEqual([refused.error.code, refused.error.message], [
    "FORBIDDEN",
    "plugin weather may not call room.lock: it needs the room.manage permission",
  ]);
  // Operator-only operations refuse every plugin, whatever its capabilities.
  const stop = await ops.tryCall("server.stop", {}, { kind: "plugin", id: "all", capabilities: ["admin"] });
  ok(!stop.ok && stop.error.code === "FORBIDDEN");
  // People and in-process tools may call everything.
  for (const actor of [CONSOLE, { kind: "openuds", session: "s" }, { kind: "http-admin", ip: "::1" }] as Actor[]) {
    equal((await ops.tryCall("server.stop", {}, actor)).ok, true, actor.kind);
  }
});

Deno.test("Ops.call maps failures: OpsError kept, anything else INTERNAL and logged, unknown names UNKNOWN_COMMAND", async () => {
  const { ops, records } = setup();
  await rejects(
    ops.call("room.lock", ["gone", true], CONSOLE),
    (e) => e instanceof OpsError && e.code === "ROOM_NOT_FOUND" && e.message === "room not found: gone",
  );
  await rejects(
    ops.call("boom", {}, CONSOLE),
    (e) => e instanceof OpsError && e.code === "INTERNAL" && e.message === "internal error: kaput",
  );
  ok(records.some((r) => r.msg === "operation failed" && r.fields.op === "boom" && r.level === "error"));
  await rejects(
    ops.call("nope", {}, CONSOLE),
    (e) => e instanceof OpsError && e.code === "UNKNOWN_COMMAND" && e.message === "unknown command: nope",
  );
});

Deno.test("Ops audits calls that change state, refused ones too; queries and in-process tools are not audited", async () => {
  const { ops, records } = setup();
  await ops.call("room.locks", {}, CONSOLE);
  await ops.call("room.lock", ["abc", true], { kind: "in-game", userId: 100, name: "Op" });
  await ops.tryCall("room.lock", ["abc", true], PLUGIN);
  await ops.call("room.lock", ["abc", false], { kind: "system", component: "benchmark" });
  await ops.tryCall("room.lock", { room_id: "abc" }, { kind: "openuds", session: "s-1" });
  deepEqual(ops.audit.recent(10).map((e) => [e.seq, e.time, e.source, e.actor, e.op, e.ok, e.code]), [
    [1, 1000, "in-game", "100", "room.lock", true, null],
    [2, 1001, "plugin", "weather", "room.lock", false, "FORBIDDEN"],
    [3, 1002, "openuds", "s-1", "room.lock", false, "INVALID_ARGUMENT"],
  ]);
  deepEqual(ops.audit.recent(1)[0]!.args, { room_id: "abc" }, "refused arguments are kept as given");
  deepEqual(ops.audit.recent(3)[0]!.args, { room_id: "abc", locked: true }, "validated arguments otherwise");
  // Bounded: the oldest entries go first.
  await ops.call("room.lock", ["def", true], CONSOLE);
  deepEqual(ops.audit.recent(10).map((e) => e.seq), [2, 3, 4]);
  ok(records.some((r) => r.msg === "operation" && r.fields.op === "room.lock" && r.fields.source === "in-game"));
});

Deno.test("deferred work runs where the caller says, only after success", async () => {
  const { ops } = setup();
  const later: (() => void)[] = [];
  await ops.call("server.stop", { reason: "a" }, CONSOLE, { defer: (fn) => later.push(fn) });
  deepEqual(ops.context.shutdowns, []);
  later.forEach((fn) => fn());
  deepEqual(ops.context.shutdowns, ["a"]);
  await ops.call("server.stop", ["b"], CONSOLE);
  deepEqual(ops.context.shutdowns, ["a", "b"], "without a defer hook: right after the operation");
});

Deno.test("Ops registers from outside: names and aliases are unique; replace, unregister and by owner", async () => {
  const { ops } = setup();
  const echo = defineOp<Ctx>({
    name: "plugin.echo",
    aliases: ["echo"],
    summary: "echo",
    permission: "plugin.call",
    params: { text: z.string() },
    run: (a) => ({ echo: a.text }),
  });
  const remove = ops.register(echo, "weather");
  deepEqual(await ops.call("echo", ["hi"], PLUGIN), { echo: "hi" });
  throws(() => ops.register(echo), /Cannot register operation "plugin.echo": the name is taken/);
  throws(() => ops.register({ ...echo, name: "other", aliases: ["room.set_lock"] }), /"room.set_lock": the name/);
  deepEqual(ops.list().find((o) => o.name === "plugin.echo"), {
    name: "plugin.echo",
    aliases: ["echo"],
    summary: "echo",
    permission: "plugin.call",
    mutates: false,
    params: ["text"],
    owner: "weather",
  });
  ops.replace({ ...echo, aliases: [], run: () => "replaced" }, "weather");
  equal(ops.has("echo"), false);
  equal(await ops.call("plugin.echo", ["x"], PLUGIN), "replaced");
  remove(); // the first registration is gone already: removes nothing
  equal(ops.has("plugin.echo"), true);
  equal(ops.unregisterOwner("weather"), 1);
  equal(ops.has("plugin.echo"), false);
  equal(ops.unregister("room.set_lock"), true);
  equal(ops.has("room.lock"), false, "an alias removes the operation with all its names");
  throws(() => defineOp({ name: "Bad Name", summary: "", permission: "operator", run: () => null }), TypeError);
  const schema = ops.schemaOf("room.locks") as { type: string };
  equal(schema.type, "object");
});

Deno.test("ops tryCallNow answers a synchronous operation at once and an asynchronous one with a promise", async () => {
  const { ops } = setup();
  ops.register(defineOp<Ctx>({
    name: "slow.read",
    summary: "waits",
    permission: "state.read",
    run: async () => await Promise.resolve({ late: true }),
  }));
  const now = ops.tryCallNow("room.lock", ["abc", true], CONSOLE);
  ok(!(now instanceof Promise));
  deepEqual(now, { ok: true, value: { room_id: "abc", locked: true, as: "room.lock" } });
  equal(ops.audit.recent(10).at(-1)?.op, "room.lock", "audited like tryCall");
  const refused = ops.tryCallNow("room.lock", ["abc", true], PLUGIN);
  ok(!(refused instanceof Promise) && !refused.ok && refused.error.code === "FORBIDDEN");
  const invalid = ops.tryCallNow("room.lock", { room_id: "abc" }, CONSOLE);
  ok(!(invalid instanceof Promise) && !invalid.ok && invalid.error.code === "INVALID_ARGUMENT");
  const later = ops.tryCallNow("slow.read", {}, CONSOLE);
  ok(later instanceof Promise);
  deepEqual(await later, { ok: true, value: { late: true } });
});
