/**
 * Operations the plugin host adds (spec 3 §4.2 `extension list|get`, §4.6):
 * extension data through `ext.*` and the console, a plugin's own files
 * (plugins only), the typed room state and recent events.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import type { Actor } from "../src/ops/mod.ts";
import { startPluginHarness } from "./support/plugins.ts";

Deno.test("extension data through ext.* (as a plugin) and the console's extension list|get", async () => {
  const p = await startPluginHarness({ plugins: [] });
  const plugin: Actor = { kind: "plugin", id: "ranks" };
  try {
    const ops = p.ch.ops;
    await ops.call("ext.user_set", [100, "rank", "gold"], plugin);
    await ops.call("ext.room_set", { room_id: "lobby", key: "theme", value: "dark" }, plugin);
    await ops.call("ext.set", ["motd", "welcome"], plugin);
    deepEqual(await ops.call("ext.user_get", [100, "rank"], plugin), { key: "rank", value: "gold" });
    deepEqual(await ops.call("ext.get", ["nothing"], plugin), { key: "nothing", value: null });
    const denied = await ops.tryCall("ext.set", ["k", "v"], { kind: "plugin", id: "x", capabilities: ["state.read"] });
    ok(!denied.ok && denied.error.code === "FORBIDDEN");
    deepEqual(JSON.parse((await p.run("extension get user 100")).lines.join("\n")), {
      scope: "user",
      id: "100",
      values: { rank: "gold" },
    });
    deepEqual(JSON.parse((await p.run("extension get global motd")).lines.join("\n")), {
      scope: "global",
      id: null,
      key: "motd",
      value: "welcome",
    });
    const list = JSON.parse((await p.run("extension list")).lines.join("\n"));
    deepEqual([list.users, list.rooms, list.global, list.keys], [1, 1, 1, ["motd", "rank", "theme"]]);
    deepEqual((await p.run("extension get room")).lines, [
      "error: extension get room needs an id",
      "usage: extension get <user|room|global> [rest...]",
    ]);
    // A room's data goes with the room.
    await ops.call("room.create", { room_id: "lobby" }, { kind: "console" });
    await ops.call("room.close", { room_id: "lobby" }, { kind: "console" });
    await p.system.host.ext.flush();
    deepEqual(await ops.call("ext.room_get", ["lobby", "theme"], plugin), { key: "theme", value: null });
  } finally {
    await p.close();
  }
});

Deno.test("file operations reach the calling plugin's own directory only", async () => {
  const p = await startPluginHarness({ plugins: [], limits: { max_file_bytes: 32 } });
  const ops = p.ch.ops;
  try {
    const a: Actor = { kind: "plugin", id: "a" };
    deepEqual(await ops.call("file.write", ["notes/1.txt", "hello"], a), { path: "notes/1.txt", bytes: 5 });
    deepEqual(await ops.call("file.read", ["notes/1.txt"], a), { path: "notes/1.txt", content: "hello" });
    equal(await Deno.readTextFile(`${p.dataDir}/plugins/a/files/notes/1.txt`), "hello");
    const other = await ops.tryCall("file.read", ["notes/1.txt"], { kind: "plugin", id: "b" });
    ok(!other.ok && other.error.code === "NOT_FOUND");
    const escape = await ops.tryCall("file.read", ["../../a/files/notes/1.txt"], { kind: "plugin", id: "b" });
    ok(!escape.ok && escape.error.code === "INVALID_ARGUMENT");
    const big = await ops.tryCall("file.write", ["x", "y".repeat(33)], a);
    ok(!big.ok && /max_file_bytes/.test(big.error.message));
    const console = await ops.tryCall("file.read", ["x"], { kind: "console" });
    ok(!console.ok && console.error.code === "FORBIDDEN");
    deepEqual(await ops.call("file.list", {}, a), { files: [{ path: "notes/1.txt", size: 5 }] });
    const readOnly = await ops.tryCall("file.write", ["x", "y"], {
      kind: "plugin",
      id: "a",
      capabilities: ["file.read"],
    });
    ok(!readOnly.ok && readOnly.error.code === "FORBIDDEN");
  } finally {
    await p.close();
  }
});

Deno.test("room.state and runtime.events", async () => {
  const p = await startPluginHarness({ plugins: [] });
  try {
    const alice = await p.ch.h.login(100);
    await alice.createRoom("state");
    const state = await p.ch.ops.call("room.state", ["state"], { kind: "plugin", id: "x" }) as Record<string, unknown>;
    equal(state.room_id, "state");
    equal(state.host_id, 100);
    deepEqual(state.players, [{
      user_id: 100,
      display_name: "Alice",
      is_monitor: false,
      is_ready: false,
      is_host: true,
      is_finished: false,
      score: null,
      accuracy: null,
    }]);
    equal(state.current_round, null);
    const { events } = await p.ch.ops.call("runtime.events", [5], { kind: "console" }) as {
      events: { kind: string }[];
    };
    deepEqual(events.map((e) => e.kind).slice(-2), ["user.online", "room.created"]);
  } finally {
    await p.close();
  }
});

Deno.test("docs/operations.md lists every operation the plugin host adds", async () => {
  const p = await startPluginHarness({ plugins: [] });
  try {
    const doc = await Deno.readTextFile(new URL("../docs/operations.md", import.meta.url));
    const added = p.ch.ops.list().filter((o) => o.owner === "plugin-host");
    ok(added.length >= 20);
    deepEqual(added.map((o) => o.name).filter((n) => !doc.includes(`\`${n}\``)), []);
  } finally {
    await p.close();
  }
});

Deno.test("command vetoes: a plugin refuses a user's chat or a room's commands, for a while or until it removes them", async () => {
  const p = await startPluginHarness({ plugins: [] });
  const mod: Actor = { kind: "plugin", id: "moderator", capabilities: ["room.manage", "admin"] };
  const roomOnly: Actor = { kind: "plugin", id: "rooms", capabilities: ["room.manage"] };
  try {
    const alice = await p.ch.h.login(100);
    const bob = await p.ch.h.login(200);
    await alice.createRoom("vetoed");
    await bob.joinRoom("vetoed");
    const { id } = await p.ch.ops.call("command.veto", {
      user_id: 200,
      commands: ["Chat"],
      reason: "muted",
      ttl_secs: 60,
    }, mod) as { id: number };
    await assertRejectsWithReason(bob.chat("hello?"), "muted");
    await alice.chat("alice may");
    const refused = await p.ch.ops.tryCall("command.veto", { user_id: 100, reason: "x" }, roomOnly);
    ok(!refused.ok && refused.error.code === "FORBIDDEN");
    deepEqual(
      (await p.ch.ops.call("command.vetoes", {}, mod) as { vetoes: { id: number }[] }).vetoes.map((v) => v.id),
      [id],
    );
    // It ends by itself.
    await p.ch.h.advance(60_000);
    await bob.chat("back");
    // A room-wide veto of chosen commands; removed by its owner.
    const room = await p.ch.ops.call("command.veto", {
      room_id: "vetoed",
      commands: ["LockRoom"],
      reason: "locked by plugin rooms",
    }, roomOnly) as { id: number };
    await assertRejectsWithReason(alice.lockRoom(true), "locked by plugin rooms");
    const other = await p.ch.ops.tryCall("command.unveto", { id: room.id }, mod);
    ok(!other.ok && other.error.code === "NOT_FOUND", "a plugin removes only its own");
    await p.ch.ops.call("command.unveto", { id: room.id }, roomOnly);
    await alice.lockRoom(true);
    const bad = await p.ch.ops.tryCall(
      "command.veto",
      { room_id: "vetoed", commands: ["Authenticate"], reason: "x" },
      roomOnly,
    );
    ok(!bad.ok && bad.error.code === "INVALID_ARGUMENT");
  } finally {
    await p.close();
  }
});
