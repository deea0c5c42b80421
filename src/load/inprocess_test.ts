import { deepEqual, equal, ok } from "node:assert/strict";
import { BENCH_ID_BASE, runInProcessBenchmark } from "./inprocess.ts";
import { formatBenchmarkReport } from "./inprocess_report.ts";
import { drive, startTestServer } from "./server_fixture_test_util.ts";

Deno.test("in-process benchmark plays rounds on virtual sessions, stores its report and cleans up", async () => {
  const t = startTestServer({}, false);
  const stored: { id?: string; title: string; report: unknown }[] = [];
  const statuses: number[] = [];
  let cpuMs = 0;
  const report = await drive(
    t.clock,
    runInProcessBenchmark(t.server, { durationSecs: 3, rooms: 3, playersPerRoom: 2, roundSecs: 1, stepMs: 500 }, {
      clock: t.clock,
      log: t.logs.logger(),
      reportStore: { saveBenchmarkReport: (input) => stored.push(input) },
      onStatus: (s) => statuses.push(s.sessions),
      sampleProcess: () => ({ cpuMs: cpuMs += 50, rssBytes: 100 * 1048576 }),
    }),
  );
  equal(report.failedOperations, 0, report.failureSamples.join("\n"));
  ok(report.rounds >= 3, `${report.rounds} rounds`);
  ok(report.operations > 0);
  for (const kind of ["Authenticate", "CreateRoom", "JoinRoom", "RequestStart", "Ready", "Abort"]) {
    ok(report.operationsByKind[kind]!.count > 0, kind);
  }
  ok(report.telemetry.touchMessages > 0 && report.telemetry.judgeMessages > 0);
  equal(report.sessions.peak, 6);
  equal(report.rooms.peak, 3);
  equal(report.rssMb.peak, 100);
  equal(report.latency.buckets.length, 9);
  deepEqual(report.cleanup, { rooms: 0, users: 0, sessions: 0 });
  equal(stored.length, 1);
  equal(stored[0]!.id, report.id);
  ok(statuses.length >= 5);
  // Nothing of the benchmark is left in the server.
  equal(t.server.core.rooms.size, 0);
  equal([...t.server.core.users.keys()].filter((id) => id <= BENCH_ID_BASE).length, 0);
  equal(t.server.core.sessions.size, 0);
  equal(t.server.core.authCache.size, 0, "one-time cache entries are gone");
  deepEqual(t.server.core.counters.violations(), {});
  ok(formatBenchmarkReport(report).some((l) => l === "cleanup complete"));
  await t.close();
});

Deno.test("in-process ramp adds rooms until the CPU cap, then holds", async () => {
  const t = startTestServer({}, false);
  let step = 0;
  const report = await drive(
    t.clock,
    runInProcessBenchmark(t.server, { mode: "ramp", durationSecs: 4, rooms: 5000, cpuPercent: 90, roundSecs: 1 }, {
      clock: t.clock,
      log: t.logs.logger(),
      // 30 % of a core per step until the third step, then 95 %.
      sampleProcess: () => ({ cpuMs: (++step <= 3 ? 300 : 950) * step, rssBytes: 0 }),
    }),
  );
  ok(report.reached, "the ramp stopped");
  equal(report.reached.reason, "cpu");
  // 1 room, then +1 (1/8 + 1) per step below the cap.
  ok(report.reached.rooms >= 2 && report.reached.rooms <= 4, `${report.reached.rooms} rooms`);
  equal(report.rooms.peak, report.reached.rooms);
  deepEqual(report.cleanup, { rooms: 0, users: 0, sessions: 0 });
  await t.close();
});
