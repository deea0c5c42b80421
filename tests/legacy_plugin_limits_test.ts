/**
 * A misbehaving plugin never harms the game (spec 3 §4.8 sandbox; issue
 * 17): a runaway loop in a hook is stopped at the instruction budget, the
 * error is logged with plugin id and hook, the plugin keeps its state, and
 * repeated overruns quarantine it until an operator enables it again; a
 * plugin keeping data without bound is stopped at its state limit.
 * Dependencies load first; a missing or cyclic one disables that plugin
 * with a clear error and the others still load. Operator choices survive a
 * restart.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { MemorySettings } from "../legacy/mod.ts";
import { startLegacy } from "./support/legacy.ts";

const plugin = (id: string, lua: string, extra: Record<string, unknown> = {}) => ({
  "plugin.json": JSON.stringify({ id, version: "1.0.0", ...extra }),
  "init.lua": lua,
});

const SPINNER = plugin(
  "spinner",
  `
calls = 0
function on_user_join(user, room)
  calls = calls + 1
  if room.id == "spin" then while true do end end
end
function count() return calls end
`,
);

Deno.test("lua limits: a runaway hook is stopped and logged, the join goes on, overruns quarantine the plugin", async () => {
  const t = await startLegacy({
    plugins: { spinner: SPINNER },
    config: { legacy: { lua_instruction_budget: 100_000, lua_max_overruns: 2 } as never },
  });
  try {
    const alice = await t.h.login(100);
    const bob = await t.h.login(200);
    await alice.createRoom("spin");
    const joined = await bob.joinRoom("spin");
    deepEqual(joined.users.map((u) => u.id), [100, 200], "the game does not wait for the plugin");
    await t.settle();
    const errors = t.h.logs.history().filter((r) => r.level === "error" && r.fields.plugin === "spinner");
    equal(errors.length, 1);
    match(errors[0]!.msg, /^Plugin spinner on_user_join error: instruction budget exceeded \(100000\)/);
    equal(errors[0]!.fields.hook, "on_user_join");
    deepEqual(t.mode.host.callFunction("spinner", "count", []), { ok: true, value: 1 }, "state kept");
    equal(t.mode.host.info("spinner")?.state, "enabled");

    await bob.leaveRoom();
    await bob.joinRoom("spin");
    await t.settle();
    const info = t.mode.host.info("spinner")!;
    equal(info.state, "error");
    match(info.reason!, /quarantined after 2 overruns of its limits within an hour/);
    await bob.leaveRoom();
    await bob.joinRoom("spin");
    equal(t.h.server.core.rooms.get("spin")!.players.length, 2);
    const listed = await t.console("plugins");
    match(listed.join("\n"), /spinner 1\.0\.0 \[error\] — quarantined/);
    deepEqual(await t.console("plugin enable spinner"), ["Plugin spinner enabled"]);
    equal(t.mode.host.info("spinner")?.state, "enabled");
  } finally {
    await t.close();
  }
});

const HOARDER = plugin(
  "hoarder",
  `
local hidden = {}
function on_user_join(user, room)
  hidden[#hidden + 1] = string.rep("h", 1000000) .. user.id .. #hidden
end
function held() return #hidden end
`,
);

Deno.test("lua limits: a plugin keeping data without bound is stopped at its state limit and dropped; the game goes on", async () => {
  const t = await startLegacy({
    plugins: { hoarder: HOARDER },
    config: { legacy: { lua_memory_mb: 4, lua_state_memory_mb: 8, lua_max_overruns: 100 } as never },
  });
  try {
    const alice = await t.h.login(100);
    const bob = await t.h.login(200);
    await alice.createRoom("hoard");
    // Every join keeps 1 MiB in an upvalue, never freed: within a few joins past 8 MiB the plugin is stopped.
    for (let i = 0; i < 16 && t.mode.host.info("hoarder")?.state === "enabled"; i++) {
      await bob.joinRoom("hoard");
      await bob.leaveRoom();
      await t.settle();
    }
    const info = t.mode.host.info("hoarder")!;
    equal(info.state, "error");
    equal(info.reason, "stopped: the plugin holds more than 8.0 MiB of Lua data (legacy.lua_state_memory_mb)");
    deepEqual(t.mode.host.callFunction("hoarder", "held", []), {
      ok: false,
      kind: "error",
      message: "plugin hoarder is not enabled",
    });
    const errors = t.h.logs.history().filter((r) => r.level === "error" && r.fields.plugin === "hoarder");
    ok(errors.some((r) => /^Plugin hoarder on_user_join error: the plugin holds more than 8\.0 MiB/.test(r.msg)));
    const carol = await t.h.login(300);
    const joined = await carol.joinRoom("hoard");
    deepEqual(joined.users.map((u) => u.id), [100, 300], "the game goes on");
  } finally {
    await t.close();
  }
});

Deno.test("lua errors in scripts and hooks stay in the plugin; a broken plugin does not stop the others", async () => {
  const t = await startLegacy({
    plugins: {
      broken: plugin("broken", "this is not lua"),
      angry: plugin("angry", `function on_room_create(room) error("nope: " .. room.id) end`),
      failing: plugin("failing", `function on_enable() error("cannot start") end`),
      fine: plugin(
        "fine",
        `created = 0 function on_room_create() created = created + 1 end function n() return created end`,
      ),
    },
  });
  try {
    const states = Object.fromEntries(t.mode.host.list().map((p) => [p.id, [p.state, p.reason]]));
    equal(states.broken![0], "error");
    match(String(states.broken![1]), /^syntax error: broken\/init\.lua:1:/);
    equal(states.failing![0], "error");
    match(String(states.failing![1]), /^on_enable failed \(error\): failing\/init\.lua:1: cannot start/);
    deepEqual([states.angry![0], states.fine![0]], ["enabled", "enabled"]);
    const alice = await t.h.login(100);
    await alice.createRoom("abc");
    await t.settle();
    deepEqual(t.mode.host.callFunction("fine", "n", []), { ok: true, value: 1 });
    ok(t.h.logs.history().some((r) => /^Plugin angry on_room_create error: angry\/init\.lua:1: nope: abc/.test(r.msg)));
    equal(t.mode.host.info("angry")?.state, "enabled", "errors are not overruns");
  } finally {
    await t.close();
  }
});

Deno.test("lua dependencies: loaded first; missing and cyclic ones refused; disabling cascades; choices survive a restart", async () => {
  const order = (id: string) => `function on_enable() phira.log_info("enabled ${id}") end`;
  const plugins = {
    app: plugin("app", order("app"), { dependencies: ["lib"] }),
    lib: plugin("lib", order("lib"), { dependencies: ["base"] }),
    base: plugin("base", order("base")),
    x: plugin("x", order("x"), { dependencies: ["y"] }),
    y: plugin("y", order("y"), { dependencies: ["x"] }),
    lost: plugin("lost", order("lost"), { dependencies: ["nowhere"] }),
    off: plugin("off", order("off"), { enabled: false }),
  };
  const settings = new MemorySettings();
  let t = await startLegacy({ plugins, settings });
  try {
    const enabled = t.h.logs.history().map((r) => /^enabled (\w+)$/.exec(r.msg)?.[1]).filter((m) => m);
    deepEqual(enabled, ["base", "lib", "app"]);
    const state = (id: string) => t.mode.host.info(id);
    deepEqual([state("x")?.state, state("x")?.reason], ["error", "dependency cycle: x -> y -> x"]);
    deepEqual([state("lost")?.state, state("lost")?.reason], [
      "error",
      `missing dependency "nowhere" (no plugin with that id was found)`,
    ]);
    deepEqual([state("off")?.state, state("off")?.reason], ["disabled", "disabled in plugin.json"]);
    deepEqual(await t.console("plugin disable base"), ["Plugin(s) disabled: base, lib, app"]);
    const refused = await t.console("plugin enable app");
    match(refused.join("\n"), /dependency "lib" is not enabled/);
  } finally {
    await t.close();
  }
  t = await startLegacy({ plugins, settings });
  try {
    deepEqual(
      ["base", "lib", "app"].map((id) => t.mode.host.info(id)?.state),
      ["disabled", "error", "error"],
      "base stays disabled after a restart; its dependents cannot start",
    );
    await t.console("plugin enable base");
    await t.console("reload");
    deepEqual(["base", "lib", "app"].map((id) => t.mode.host.info(id)?.state), ["enabled", "enabled", "enabled"]);
  } finally {
    await t.close();
  }
});
