import { deepEqual, equal, ok } from "node:assert/strict";
import type { RunDeps, ScenarioResult } from "./scenario.ts";
import { runLogins } from "./scenario_logins.ts";
import { monitorIds, runRooms } from "./scenario_rooms.ts";
import { runSessions } from "./scenario_sessions.ts";
import { ManualClock } from "../util/clock.ts";
import { drive, startTestServer } from "./server_fixture_test_util.ts";

function deps(clock: RunDeps["clock"]): RunDeps {
  return { clock, signal: new AbortController().signal, server: null, self: null };
}

function noErrors(r: ScenarioResult): void {
  deepEqual(r.errors.toJSON(), { total: 0, byKind: {}, samples: [] });
}

Deno.test("sessions scenario ramps, pings during the hold and closes everything", async () => {
  const t = await startTestServer();
  const target = { host: "127.0.0.1", port: t.port, pid: null };
  const run = runSessions(
    { sessions: 6, rampPerSec: 100, duration: 1, pingInterval: 0.2, idBase: 500, maxInflight: 4 },
    target,
    deps(t.clock),
  );
  const r = await drive(t.clock, run.result);
  noErrors(r);
  const res = r.results as { sessions: { established: number }; pingHold: { count: number } };
  equal(res.sessions.established, 6);
  ok(res.pingHold.count >= 12, `${res.pingHold.count} pings in a 1 s hold of 6 sessions pinging every 0.2 s`);
  equal(run.status().phase, "teardown");
  await drive(t.clock, Promise.resolve());
  equal(t.server.core.sessions.size, 0, "every client closed");
  await t.close();
});

Deno.test("rooms scenario plays full rounds with relayed telemetry", async () => {
  const o = {
    rooms: 2,
    players: 3,
    monitor: true,
    roundSecs: 1.5,
    duration: 3,
    fingers: 2,
    notesPerSec: 16,
    chart: 7,
    idBase: 1000,
    monitorBase: 9000,
    rampPerSec: 50,
    pingInterval: 3,
    maxInflight: 4,
    setupLimit: 0,
  };
  const t = await startTestServer({ monitors: monitorIds(o) });
  const run = runRooms(o, { host: "127.0.0.1", port: t.port, pid: null }, deps(t.clock));
  const r = await drive(t.clock, run.result);
  noErrors(r);
  const res = r.results as {
    rooms: { ready: number; setupFailed: number; roundFailed: number };
    roundsCompleted: number;
    sentSteady: { touchMessages: number; judgeMessages: number };
    relayedSteady: { touchMessages: number; judgeMessages: number };
    sentTotal: { touchMessages: number; judgeMessages: number };
    relayedTotal: { touchMessages: number; judgeMessages: number };
    relayLatency: { all: { count: number } };
    commands: Record<string, { count: number }>;
  };
  equal(res.rooms.ready, 2);
  ok(res.roundsCompleted >= 2, `${res.roundsCompleted} rounds`);
  ok(res.sentSteady.touchMessages > 0 && res.sentSteady.judgeMessages > 0);
  // Every batch a player sent reached its room's monitor (over the whole run: the steady window's
  // edges may cut a batch between its send and its relay).
  deepEqual(res.relayedTotal, res.sentTotal);
  ok(res.sentTotal.touchMessages >= res.sentSteady.touchMessages);
  ok(res.relayLatency.all.count > 0);
  for (const c of ["CreateRoom", "JoinRoom", "JoinRoom(monitor)", "SelectChart", "RequestStart", "Ready", "Played"]) {
    ok(res.commands[c]!.count > 0, c);
  }
  equal(t.server.core.rooms.size, 0, "rooms end when everyone has left");
  deepEqual(t.server.core.counters.violations(), {});
  await t.close();
});

Deno.test("logins scenario measures a cold and a warm phase", async () => {
  const t = await startTestServer();
  const run = runLogins(
    { count: 12, duration: 30, concurrency: 3, warmUsers: 4, idBase: 70_000, phases: "cold,warm" },
    { host: "127.0.0.1", port: t.port, pid: null },
    deps(t.clock),
  );
  const r = await drive(t.clock, run.result);
  noErrors(r);
  const phases = (r.results as { phases: { phase: string; logins: number; failed: number }[] }).phases;
  deepEqual(phases.map((p) => [p.phase, p.logins, p.failed]), [["cold", 12, 0], ["warm", 12, 0]]);
  const values = t.server.core.counters.values;
  equal(values.auth_cache_misses, 12 + 4, "cold logins and the warm-up ask the upstream");
  equal(values.auth_cache_hits, 12, "warm logins hit the cache");
  deepEqual(t.server.core.counters.violations(), {});
  await t.close();
});

Deno.test("rooms scenario gives up setups at the setup limit and still reports", async () => {
  // A server that accepts and never answers: every login waits, as on a saturated server.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  const clock = new ManualClock();
  const o = {
    rooms: 3,
    players: 2,
    monitor: false,
    roundSecs: 1,
    duration: 1,
    fingers: 0,
    notesPerSec: 0,
    chart: 7,
    idBase: 1000,
    monitorBase: 9000,
    rampPerSec: 50,
    pingInterval: 3,
    maxInflight: 2,
    setupLimit: 1,
  };
  const run = runRooms(o, { host: "127.0.0.1", port: listener.addr.port, pid: null }, deps(clock));
  const r = await drive(clock, run.result);
  const res = r.results as { rooms: { ready: number; setupFailed: number; setupUnfinished: number }; setupMs: number };
  deepEqual(res.rooms, { target: 3, ready: 0, setupFailed: 0, setupUnfinished: 3, roundFailed: 0 });
  ok(res.setupMs >= 1000 && res.setupMs < 2000, `setup ended at the limit (${res.setupMs} ms), not at a timeout`);
  ok(r.errors.toJSON().byKind["room-setup-unfinished"] === 3, JSON.stringify(r.errors.toJSON().byKind));
  listener.close();
  await accepting;
  for (const c of held) c.close();
});
