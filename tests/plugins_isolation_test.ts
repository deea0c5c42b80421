/**
 * Isolation and limits of the plugin host over real child processes (spec
 * 3 §4.6, §8): a busy loop is killed at `call_timeout_ms` while players
 * keep playing, memory stops at `max_memory_mb`, a trap quarantines,
 * events reach a plugin in order and overflow is counted, a host function
 * without its capability answers its error case.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { DomainEventInput } from "../src/events/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { startPluginHarness } from "./support/plugins.ts";

type Info = {
  state: string;
  reason: string | null;
  busy: boolean;
  pid: number | null;
  queue: { delivered: number; overflowed: number; queued: number } | null;
  counters: Record<string, number>;
};

function processGone(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return false;
  } catch {
    return true;
  }
}

Deno.test("plugins: a busy loop is stopped at call_timeout_ms while players keep playing; overflow is counted", async () => {
  const p = await startPluginHarness({
    plugins: [{ id: "busy_loop", source: "test/busy_loop" }],
    limits: { event_queue_capacity: 4 },
  });
  const info = () => p.system.host.info("busy_loop") as Info;
  try {
    const pid = info().pid!;
    // The first event sends the plugin into its loop.
    const alice = await p.ch.h.login(100);
    await waitUntil(() => info().busy, "the plugin busy");
    // The game goes on: a room, a join, chat, all answered while the plugin spins.
    const bob = await p.ch.h.login(200);
    await alice.createRoom("loop");
    await bob.joinRoom("loop");
    await bob.chat("still playing");
    await alice.waitForMessage("Chat");
    equal(info().state, "Enabled");
    // The plugin's queue holds 4 events; more are refused and counted, and publishing never waits.
    for (let i = 1; i <= 10; i++) {
      p.ch.h.bus.publish({ kind: "user.online", user: 1000 + i, name: "x", language: "en-US", ip: null });
    }
    equal(info().queue!.queued, 4);
    ok(info().queue!.overflowed >= 6, "events beyond the queue capacity are refused and counted");
    ok((p.system.host.status().events_overflowed as number) >= 6);

    await p.ch.h.advance(2000);
    await waitUntil(() => info().state === "Error", "quarantined");
    match(info().reason!, /on ?Event timed out: the call ran longer than call_timeout_ms \(2000 ms\)/i);
    equal(info().counters.quarantines, 1);
    await waitUntil(() => processGone(pid), "the child process gone");
    // Still playing after the plugin is gone.
    await alice.chat("after");
    await bob.waitForMessage("Chat");
    // An operator brings it back; its next event sends it into the loop again.
    deepEqual((await p.run("plugin enable busy_loop")).lines, ["busy_loop 0.1.0: Enabled"]);
  } finally {
    await p.close();
  }
});

Deno.test("plugins: memory stops at max_memory_mb; a trap quarantines; capabilities are checked per call", async () => {
  const p = await startPluginHarness({
    plugins: [
      { id: "probe", source: "test/probe" },
      { id: "admin_probe", source: "test/probe", capabilities: ["state.read", "admin", "plugin.register"] },
    ],
    limits: { max_memory_mb: 4 },
  });
  try {
    // 4 MiB = 64 pages: the plugin grows 16 at a time from 2 and is refused past 64.
    deepEqual((await p.run("plugin call probe grow")).lines, ["50"]);
    // Without `admin`, kick-user answers its error case (the guest passes it on); no trap, still Enabled.
    deepEqual((await p.run("plugin call probe kick")).lines, [
      'error: plugin probe lacks the capability "admin" needed by phira-user-mgmt.kickUser (grant it in probe.capabilities.json)',
    ]);
    equal((p.system.host.info("probe") as Info).counters.capability_refusals, 1);
    // With it, the call reaches the operation (user 5 is not online).
    deepEqual((await p.run("plugin call admin_probe kick")).lines, ["error: user 5 is not connected"]);
    // A trap quarantines the plugin: its instance cannot be entered again.
    const trapped = await p.run("plugin call probe trap");
    ok(!trapped.ok);
    const info = p.system.host.info("probe") as Info;
    equal(info.state, "Error");
    match(info.reason!, /trapped in onApi: RuntimeError: wasm trap: wasm `unreachable`/);
    deepEqual((p.system.host.info("probe") as unknown as { routes: string[] }).routes, [], "its routes are gone");
  } finally {
    await p.close();
  }
});

Deno.test("plugins: events reach a plugin in order; timers fire through on-api", async () => {
  const p = await startPluginHarness({
    plugins: [{ id: "probe", source: "test/probe", capabilities: ["state.read", "timer", "plugin.register"] }],
  });
  const info = () => p.system.host.info("probe") as Info;
  try {
    const bus = p.ch.h.bus;
    const expected: string[] = [];
    for (let i = 1; i <= 300; i++) {
      const events: [DomainEventInput, string][] = [
        [{ kind: "user.online", user: i, name: `u${i}`, language: "en-US", ip: "203.0.113.9" }, `a${i}`],
        [{ kind: "room.joined", room: "r", uuid: "u", hidden: false, user: i, name: `u${i}`, monitor: false }, `d${i}`],
        [{ kind: "user.offline", user: i, name: `u${i}` }, `b${i}`],
      ];
      for (const [event, code] of events) {
        bus.publish(event);
        expected.push(code);
      }
    }
    // Kinds plugins do not get (chat) are not delivered.
    bus.publish({ kind: "chat.message", room: "r", uuid: "u", hidden: false, user: 1, content: "x" });
    await waitUntil(() => info().queue!.delivered >= 900, "900 events delivered", 20_000);
    const log = (await p.run("plugin call probe events")).lines[0]!;
    deepEqual(JSON.parse(log).split(",").filter(Boolean), expected);
    equal(info().counters.events_delivered, 900);
    equal(info().queue!.overflowed, 0);

    deepEqual((await p.run("plugin call probe timer")).lines, ["ok"]);
    await p.ch.h.advance(50);
    await waitUntil(() => info().counters.notifications === 1, "the timer fired");
    ok(JSON.parse((await p.run("plugin call probe events")).lines[0]!).endsWith("T,"));
  } finally {
    await p.close();
  }
});
