/**
 * The Lua hooks fire where their names say (spec 3 §4.8; peers note §2.4):
 * lifecycle, joins and leaves with reasons, room creation and destruction
 * (not a room hidden and shown again), kicks, bans and unbans from any
 * surface, and `on_before_command` with the original's type names and data
 * tables — where `false` refuses with the protocol's error reply and
 * telemetry is dropped.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import type { TouchFrame } from "../src/protocol/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { type LegacyHarness, startLegacy } from "./support/legacy.ts";
import { PROBE_PLUGIN } from "./support/legacy_probe.ts";

type Seen = { hook: string; args: unknown[] };

async function hooks(t: LegacyHarness, clear = true): Promise<Seen[]> {
  await t.settle();
  const r = t.mode.host.callFunction("probe", "hooks", []);
  if (!r.ok) throw new Error(r.message);
  if (clear) t.mode.host.callFunction("probe", "clear", []);
  return r.value as Seen[];
}
const names = (seen: Seen[]) => seen.map((s) => [s.hook, ...s.args]);
const TF: TouchFrame[] = [{ time: 1.5, points: [[0, { x: 0.5, y: -0.25 }]] }];

Deno.test("lua hooks: lifecycle, rooms, joins and leaves with reasons", async () => {
  const t = await startLegacy({ plugins: { probe: PROBE_PLUGIN } });
  try {
    deepEqual(names(await hooks(t)), [["on_enable"]]);
    const alice = await t.h.login(100);
    const bob = await t.h.login(200);
    const mon = await t.h.login(9);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    await mon.joinRoom("abc", true);
    await t.console("op room.set_hidden abc true");
    await t.console("op room.set_hidden abc false");
    await bob.leaveRoom();
    await t.console("op room.kick abc 9");
    await alice.leaveRoom();
    const seen = names(await hooks(t)).filter((s) => s[0] !== "on_before_command");
    deepEqual(seen, [
      ["on_room_create", "abc", 100],
      ["on_user_join", 200, "abc", false],
      ["on_user_join", 9, "abc", true],
      ["on_user_leave", 200, "abc", "leave"],
      ["on_user_leave", 9, "abc", "kick"],
      ["on_user_leave", 100, "abc", "leave"],
      ["on_room_destroy", "abc"],
    ]);
    await t.console("plugin disable probe");
    equal(t.mode.host.info("probe")?.state, "disabled");
    await t.console("plugin enable probe");
    deepEqual(names(await hooks(t)), [["on_enable"]], "a fresh state: on_disable's record went with the old one");
  } finally {
    await t.close();
  }
});

Deno.test("lua hooks: kick, ban and unban from the console, OpenUDS-style operations and Lua alike", async () => {
  const t = await startLegacy({ plugins: { probe: PROBE_PLUGIN } });
  try {
    await hooks(t);
    const alice = await t.h.login(100);
    await alice.createRoom("abc");
    await t.console("kick 100");
    await waitUntil(() => !t.h.server.core.users.has(100), "kicked");
    await t.console("ban 300 cheating");
    await t.ops.call("player.unban", { user_id: 300 }, { kind: "openuds", session: "s1" });
    await t.console("unban 300");
    const seen = names(await hooks(t)).filter((s) => s[0] !== "on_before_command" && s[0] !== "on_room_create");
    deepEqual(seen.slice(0, 1), [["on_user_kick", 100, "abc", "Kicked by administrator"]]);
    deepEqual(seen.filter((s) => s[0] !== "on_user_leave" && s[0] !== "on_room_destroy").slice(1), [
      ["on_user_ban", 300, "cheating", 0],
      ["on_user_unban", 300],
    ], "the second unban did nothing and fired nothing");
  } finally {
    await t.close();
  }
});

Deno.test("lua on_before_command: type names and data tables of the original; false refuses with a reason", async () => {
  const t = await startLegacy({ plugins: { probe: PROBE_PLUGIN } });
  try {
    const alice = await t.h.login(100);
    const bob = await t.h.login(200);
    const mon = await t.h.login(9);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    await mon.joinRoom("abc", true);
    await alice.lockRoom(true);
    await alice.cycleRoom(false);
    await alice.chat("hi");
    await alice.selectChart(7);
    await alice.requestStart();
    await bob.ready();
    await bob.cancelReady();
    await hooks(t, false);
    const seen = (await hooks(t)).filter((s) => s.hook === "on_before_command").map((s) => s.args);
    deepEqual(seen, [
      [100, "create_room", { room_id: "abc" }],
      [200, "join_room", { room_id: "abc", monitor: false }],
      [9, "join_room", { room_id: "abc", monitor: true }],
      [100, "lock_room", { flag: true }],
      [100, "cycle_room", { flag: false }],
      [100, "chat", { message: "hi" }],
      [100, "select_chart", { chart_id: 7 }],
      [100, "request_start", {}],
      [200, "ready", {}],
      [200, "cancel_ready", {}],
    ]);

    // A refusal: the protocol's error reply with the reason the plugin gave, or the localized default.
    t.mode.host.callFunction("probe", "set_refuse", ["ready", "wait for the referee"]);
    match(await bob.ready().then(() => "ready", (e: Error) => e.message), /wait for the referee/);
    t.mode.host.callFunction("probe", "set_refuse", ["chat", false]);
    await alice.chat("still allowed");
    // Telemetry refused is dropped: the monitor gets nothing.
    t.mode.host.callFunction("probe", "set_refuse", ["touches", "no"]);
    const before = mon.received.filter((c) => c.type === "Touches").length;
    alice.touches(TF);
    await alice.chat("after the touches");
    await t.settle();
    equal(mon.received.filter((c) => c.type === "Touches").length, before);
    equal(t.h.server.core.counters.values.commands_vetoed, 2);
  } finally {
    await t.close();
  }
});
