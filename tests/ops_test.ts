/**
 * The operations layer across its surfaces (issue 12): an operation added
 * from outside is reachable from the console and OpenUDS with nothing else
 * touched; plugins call the built-in operations positionally, as the WASM
 * `api-call` does, within their capabilities; every surface's calls land in
 * one audit log; operator room changes have one path.
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { type Actor, OpsError, p, serverOp } from "../src/ops/mod.ts";
import { startHttpHarness } from "./support/http.ts";
import { startUdsHarness } from "./support/uds.ts";
import { waitUntil } from "./support/describe.ts";

/** A new operation, defined in one place: greet a room's members with a system line. */
const greet = serverOp({
  name: "room.greet",
  summary: "greet a room's members",
  permission: "send",
  mutates: true,
  params: { room_id: p.roomId(), text: p.text(100) },
  run: (a, { context: s }) => {
    const sent = s.admin.broadcastRoom(a.room_id, `welcome: ${a.text}`);
    if (sent === null) throw new OpsError("ROOM_NOT_FOUND", `room not found: ${a.room_id}`);
    return { room_id: a.room_id, sent };
  },
});

Deno.test("an operation registered from outside is reachable from the console and OpenUDS", async () => {
  const u = await startUdsHarness();
  const { c } = u;
  const alice = await c.h.login(100);
  await alice.createRoom("abc");
  c.ops.register(greet, "test-extension");
  const a = await u.client();
  // Console: the generic `op` command, positional words or key=value; `ops` lists it.
  deepEqual(await c.lines('op room.greet abc "from the console"'), ["{", '  "room_id": "abc",', '  "sent": 1', "}"]);
  deepEqual(JSON.parse((await c.lines("op room.greet room_id=abc text=again")).join("")), { room_id: "abc", sent: 1 });
  deepEqual(JSON.parse((await c.lines(`op room.greet '{"room_id":"abc","text":"json"}'`)).join("")), {
    room_id: "abc",
    sent: 1,
  });
  ok((await c.lines("ops room.gr"))[0]!.startsWith("room.greet  greet a room's members [room_id, text]"));
  const missing = await c.run("op room.greet nope hi");
  ok(!missing.ok && missing.code === "ROOM_NOT_FOUND" && missing.message === "room not found: nope");
  const bad = await c.run("op room.greet abc");
  ok(!bad.ok && bad.code === "INVALID_ARGUMENT" && bad.message === "text: required", JSON.stringify(bad));
  // OpenUDS: the command name is the operation name; params named or positional.
  deepEqual(await a.ok("room.greet", { room_id: "abc", text: "from the socket" }), { room_id: "abc", sent: 1 });
  deepEqual(await a.ok("room.greet", ["abc", "positional"]), { room_id: "abc", sent: 1 });
  deepEqual(await a.fail("room.greet", { room_id: "zzz", text: "x" }), {
    code: "ROOM_NOT_FOUND",
    message: "room not found: zzz",
  });
  await waitUntil(
    () => alice.received.filter((m) => m.type === "Message" && m.message.type === "Chat").length >= 5,
    "five greetings",
  );
  const audit = c.ops.audit.recent(20).filter((e) => e.op === "room.greet");
  deepEqual(audit.map((e) => [e.source, e.ok, e.code]), [
    ["console", true, null],
    ["console", true, null],
    ["console", true, null],
    ["console", false, "ROOM_NOT_FOUND"],
    ["console", false, "INVALID_ARGUMENT"],
    ["openuds", true, null],
    ["openuds", true, null],
    ["openuds", false, "ROOM_NOT_FOUND"],
  ]);
  // Removed again: gone from both surfaces.
  equal(c.ops.unregisterOwner("test-extension"), 1);
  equal((await a.fail("room.greet", ["abc", "x"])).code, "UNKNOWN_COMMAND");
  const gone = await c.run("op room.greet abc x");
  ok(!gone.ok && gone.code === "UNKNOWN_COMMAND");
  await u.close();
});

Deno.test("a plugin calls built-in operations positionally, as api-call does, within its capabilities", async () => {
  const u = await startUdsHarness();
  const { c } = u;
  const alice = await c.h.login(100);
  const bob = await c.h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  const plain: Actor = { kind: "plugin", id: "stats" };
  const manager: Actor = { kind: "plugin", id: "mod", capabilities: ["state.read", "room.manage", "admin"] };
  const rooms = await c.ops.call("rooms.list", [], plain) as { rooms: { room_id: string }[]; total: number };
  deepEqual(rooms.rooms.map((r) => r.room_id), ["abc"]);
  deepEqual(await c.ops.call("user_name", [200], plain), { user_id: 200, name: "Bob" });
  // Addresses only for people and plugins granted admin.
  const seen = async (actor: Actor) =>
    ((await c.ops.call("users.list", [], actor)) as { users: { ip: string | null }[] }).users.map((u) => u.ip);
  deepEqual(await seen(plain), [null, null]);
  deepEqual(await seen(manager), ["127.0.0.1", "127.0.0.1"]);
  deepEqual(await seen({ kind: "console" }), ["127.0.0.1", "127.0.0.1"]);
  equal(await c.ops.call("user.is_online", [200], plain), true);
  deepEqual(
    await c.ops.call("rooms.by_user", [200], plain).then((r) => (r as { room: { room_id: string } }).room.room_id),
    "abc",
  );
  const refused = await c.ops.tryCall("room.set_lock", ["abc", true], plain);
  ok(!refused.ok && refused.error.code === "FORBIDDEN", "room.manage is not a default capability");
  deepEqual(await c.ops.call("room.set_lock", ["abc", true], manager), { room_id: "abc", locked: true });
  equal(c.h.server.core.rooms.get("abc")!.locked, true);
  deepEqual(await c.ops.call("room.set_host", ["abc", null], manager), { room_id: "abc", host_id: -1 });
  deepEqual(await c.ops.call("admin.kick_user", [200, "spam"], manager), { user_id: 200, reason: "spam" });
  equal(c.h.server.core.users.has(200), false);
  deepEqual(await c.ops.call("admin.ban_user", [300, null], manager), {
    user_id: 300,
    reason: "",
    disconnected: false,
  });
  equal(await c.ops.call("admin.is_banned", [300], manager), true);
  // A plugin never reaches an operator-only operation, not even through the console.
  const cli = await c.ops.tryCall("cli.execute", ["exit"], manager);
  ok(!cli.ok && cli.error.code === "FORBIDDEN");
  deepEqual(c.shutdowns, []);
  deepEqual(c.ops.audit.recent(10).map((e) => `${e.actor}:${e.op}:${e.ok}`), [
    "stats:room.lock:false",
    "mod:room.lock:true",
    "mod:room.set_host:true",
    "mod:player.kick:true",
    "mod:player.ban:true",
    "mod:cli.execute:false",
  ]);
  await u.close();
});

Deno.test("the HTTP admin panel acts through the operations, audited as http-admin", async () => {
  const h = await startHttpHarness();
  const alice = await h.login(100);
  await alice.createRoom("abc");
  const login = await h.http.request("/admin/api/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ password: "correct horse battery staple" }),
  });
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  const res = await h.http.request("/admin/api/rooms/abc/disband", {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
  });
  equal(res.status, 200);
  equal(h.server.core.rooms.has("abc"), false);
  const entry = h.http.context.ops.audit.recent(1)[0]!;
  deepEqual([entry.source, entry.actor, entry.op, entry.ok], ["http-admin", "127.0.0.1", "room.close", true]);
  await h.close();
});

Deno.test("operator room changes have one path: only src/ops reaches the server's operator room actions", async () => {
  const offenders: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (path.endsWith(".ts") && !path.endsWith("_test.ts")) {
        if (path.startsWith("src/ops/") || path.startsWith("src/server/")) continue;
        const text = await Deno.readTextFile(path);
        // The operator path (`Admin.roomOps`), raw transitions applied from outside the server, or the old helper.
        if (/\.roomOps\b|\bapplyAdmin\b|\bcore\.apply\(/.test(text)) offenders.push(path);
      }
    }
  };
  await walk("src");
  deepEqual(offenders, []);
});

Deno.test("docs/operations.md lists every operation and alias", async () => {
  const u = await startUdsHarness();
  const doc = await Deno.readTextFile("docs/operations.md");
  const missing = u.c.ops.list().flatMap((o) => [o.name, ...o.aliases]).filter((n) => !doc.includes(`\`${n}\``));
  deepEqual(missing, []);
  // Each one describes its arguments as JSON Schema (for plugin handler descriptors and tools).
  for (const o of u.c.ops.list()) {
    const d = await u.c.ops.call("ops.describe", [o.name], { kind: "plugin", id: "tools" }) as {
      schema: { type: string; properties?: Record<string, unknown> };
    };
    equal(d.schema.type, "object", o.name);
    deepEqual(Object.keys(d.schema.properties ?? {}), o.params, o.name);
  }
  await u.close();
});
