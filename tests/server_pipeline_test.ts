/**
 * The command pipeline's extension seam (src/server/pipeline.ts) over real
 * TCP: a veto hook refuses a command with a reason and the client gets that
 * command's error reply (spec 3 §4.1 rule 1), a vetoed Touches is dropped
 * (no reply exists), hooks see Active sessions only and run after the
 * built-in guards, a throwing hook is counted and vetoes nothing, and a
 * removed hook stops running. Feature links run after the hooks.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import type { CommandView } from "../src/server/mod.ts";
import { devToken, startHarness } from "./support/harness.ts";
import { waitUntil } from "./support/describe.ts";

Deno.test("pipeline: a veto hook refuses a command with the protocol's error reply and its reason", async () => {
  const h = await startHarness();
  const seen: string[] = [];
  const remove = h.server.commands.beforeCommand((c: CommandView) => {
    seen.push(`${c.type}:${c.userId}:${c.roomId}`);
    if (c.type === "Chat" && (c.cmd as { message: string }).message.includes("spoiler")) return "no spoilers here";
    if (c.type === "LockRoom") return "locking is disabled on this server";
    return null;
  }, "test");
  const alice = await h.login(100);
  await alice.createRoom("abc");
  await alice.chat("hello");
  await assertRejectsWithReason(alice.chat("a spoiler"), "no spoilers here");
  await assertRejectsWithReason(alice.lockRoom(true), "locking is disabled on this server");
  equal(h.server.core.rooms.get("abc")?.locked, false, "the vetoed command did nothing");
  equal(h.server.core.counters.values.commands_vetoed, 2);
  deepEqual(seen, ["CreateRoom:100:null", "Chat:100:abc", "Chat:100:abc", "LockRoom:100:abc"], "no Authenticate");
  remove();
  await alice.lockRoom(true);
  equal(h.server.core.rooms.get("abc")?.locked, true, "a removed hook no longer runs");
  equal(h.server.commands.hookCount, 0);
  await h.close();
});

Deno.test("pipeline: a vetoed Touches is dropped (it has no reply); other telemetry still reaches monitors", async () => {
  const h = await startHarness({ config: { monitors: [9] } });
  h.server.commands.beforeCommand((c) => c.type === "Touches" ? "telemetry off" : null);
  const alice = await h.login(100);
  const mon = await h.login(9);
  await alice.createRoom("abc");
  await mon.joinRoom("abc", true);
  alice.touches([{ time: 1, points: [] }]);
  alice.judges([{ time: 2, line_id: 3, note_id: 7, judgement: "Good" }]);
  await waitUntil(() => mon.received.some((c) => c.type === "Judges"), "judges relayed");
  ok(!mon.received.some((c) => c.type === "Touches"), "the vetoed Touches was not relayed");
  ok(!alice.received.some((c) => c.type === "Touches"), "and nothing was sent back for it");
  equal(h.server.core.counters.values.commands_vetoed, 1);
  await h.close();
});

Deno.test("pipeline: the guards run before the hooks; a throwing hook is counted and vetoes nothing", async () => {
  const h = await startHarness();
  let calls = 0;
  h.server.commands.beforeCommand(() => {
    calls++;
    throw new Error("broken hook");
  }, "broken");
  const stranger = await h.connect();
  await assertRejectsWithReason(stranger.chat("hi"), "not authenticated");
  equal(calls, 0, "an unauthenticated command never reaches a hook");
  const alice = await h.login(100);
  await alice.createRoom("abc");
  for (let i = 0; i < 10; i++) await alice.chat(`m${i}`);
  equal(calls, 11, "the hook ran for each command and vetoed none");
  await assertRejectsWithReason(alice.chat("one too many"), "Too many requests, slow down a little");
  equal(calls, 11, "a rate-limited command never reaches a hook");
  equal(h.server.core.counters.values.command_hook_failures, 11);
  await h.close();
});

Deno.test("pipeline: feature links run after the veto hooks, in the order they were added", async () => {
  const h = await startHarness();
  const order: string[] = [];
  h.server.commands.beforeCommand((c) => void order.push(`hook ${c.type}`));
  h.server.commands.use((cc, next) => {
    order.push(`first ${cc.cmd.type}`);
    if (cc.cmd.type === "CreateRoom" && cc.cmd.id === "taken") return cc.failText("reserved by a feature");
    return next();
  });
  h.server.commands.use((cc, next) => {
    order.push(`second ${cc.cmd.type}`);
    return next();
  });
  const alice = await h.connect();
  await alice.authenticate(devToken(100));
  await assertRejectsWithReason(alice.createRoom("taken"), "reserved by a feature");
  await alice.createRoom("free");
  deepEqual(order, [
    "first Authenticate",
    "second Authenticate",
    "hook CreateRoom",
    "first CreateRoom",
    "hook CreateRoom",
    "first CreateRoom",
    "second CreateRoom",
  ]);
  equal(h.server.core.rooms.has("taken"), false);
  await h.close();
});
