import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { BENCH_ID_BASE, runInProcessBenchmark } from "./inprocess.ts";
import { InProcessBenchmarks } from "./inprocess_host.ts";
import { BenchmarkError, formatBenchmarkReport } from "./inprocess_report.ts";
import { drive, startTestServer } from "./server_fixture_test_util.ts";

Deno.test("in-process benchmark plays rounds on virtual sessions, stores its report and cleans up", async () => {
  const t = await startTestServer({}, false);
  const stored: { id?: string; title: string; report: unknown }[] = [];
  const statuses: number[] = [];
  let cpuMs = 0;
  const report = await drive(
    t.clock,
    runInProcessBenchmark(t.server, { durationSecs: 3, rooms: 3, playersPerRoom: 2, roundSecs: 1, stepMs: 500 }, {
      ops: t.ops,
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
  const t = await startTestServer({}, false);
  let step = 0;
  const report = await drive(
    t.clock,
    runInProcessBenchmark(t.server, { mode: "ramp", durationSecs: 4, rooms: 5000, cpuPercent: 90, roundSecs: 1 }, {
      ops: t.ops,
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

Deno.test("in-process benchmark logs virtual logins at debug level only", async () => {
  const t = await startTestServer({}, false);
  await drive(
    t.clock,
    runInProcessBenchmark(t.server, { durationSecs: 1, rooms: 2, roundSecs: 1, stepMs: 500 }, {
      ops: t.ops,
      clock: t.clock,
      log: t.logs.logger(),
      sampleProcess: () => ({ cpuMs: 0, rssBytes: 0 }),
    }),
  );
  const records = t.logs.history();
  const logins = records.filter((r) => r.msg === "user authenticated");
  equal(logins.length, 4, "every virtual login is still logged");
  ok(logins.every((r) => r.level === "debug" && (r.fields.user as number) <= BENCH_ID_BASE));
  const loud = records.filter((r) => r.level !== "debug" && typeof r.fields.user === "number" && r.fields.user < 0);
  deepEqual(loud.map((r) => r.msg), [], "no info line per virtual user");
  await t.close();
});

Deno.test("in-process benchmark stops and cleans up when its signal is aborted", async () => {
  const t = await startTestServer({}, false);
  const stop = new AbortController();
  let peakRooms = 0;
  const report = await drive(
    t.clock,
    runInProcessBenchmark(t.server, { durationSecs: 3600, rooms: 3, roundSecs: 30, stepMs: 500 }, {
      ops: t.ops,
      clock: t.clock,
      log: t.logs.logger(),
      signal: stop.signal,
      sampleProcess: () => ({ cpuMs: 0, rssBytes: 0 }),
      onStatus: (s) => {
        peakRooms = Math.max(peakRooms, t.server.core.rooms.size);
        // Abort mid-round, while every room is playing.
        if (s.playingRooms === 3 && s.elapsedMs >= 2000) stop.abort();
      },
    }),
  );
  equal(peakRooms, 3, "the rooms were up before the abort");
  equal(report.interrupted, true);
  ok(report.durationSecs < 10, `stopped after ${report.durationSecs} s of a 3600 s run`);
  deepEqual(report.cleanup, { rooms: 0, users: 0, sessions: 0 });
  equal([...t.server.core.rooms.keys()].filter((id) => id.startsWith("bench-")).length, 0);
  equal([...t.server.core.users.keys()].filter((id) => id < 0).length, 0);
  equal(t.server.core.sessions.size, 0);
  ok(formatBenchmarkReport(report)[0]!.includes("(interrupted)"));
  await t.close();
});

Deno.test("InProcessBenchmarks runs one benchmark at a time and refuses once its stop signal fired", async () => {
  const t = await startTestServer({}, false);
  const stop = new AbortController();
  const host = new InProcessBenchmarks(t.server, {
    ops: t.ops,
    clock: t.clock,
    log: t.logs.logger(),
    signal: stop.signal,
    sampleProcess: () => ({ cpuMs: 0, rssBytes: 0 }),
  });
  const options = { durationSecs: 2, rooms: 1, roundSecs: 1, stepMs: 500 };
  const first = host.runner.run(options);
  equal(host.running, true);
  await rejects(
    host.run(options),
    (e) => e instanceof BenchmarkError && e.code === "BUSY" && /a benchmark is already running/.test(e.message),
  );
  const lines = (await drive(t.clock, first)).lines;
  ok(lines.includes("cleanup complete"), lines.join("\n"));
  equal(host.running, false);
  await host.idle();
  // State is per run: the next one is accepted.
  const second = await drive(t.clock, host.run(options));
  equal(second.interrupted, false);
  // Shutdown: a long run is aborted, idle() waits for its cleanup, and no new run starts.
  const long = host.run({ ...options, durationSecs: 3600 });
  await drive(t.clock, Promise.resolve(), 10, 100);
  stop.abort();
  await drive(t.clock, host.idle());
  equal((await long).interrupted, true);
  equal([...t.server.core.users.keys()].filter((id) => id < 0).length, 0);
  await rejects(host.run(options), (e) => e instanceof BenchmarkError && e.code === "STOPPING");
  await t.close();
});
