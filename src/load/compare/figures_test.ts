import { deepEqual, equal } from "node:assert/strict";
import { idleFigures, relayFigures, saturationVerdict, steadyWindow } from "./figures.ts";
import type { Sample } from "./sampler.ts";

const M = 1024 * 1024;

/** A `rooms` report as the load generator writes it (the fields the comparison reads). */
export function roomsReport(startedAt: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    startedAt: new Date(startedAt).toISOString(),
    results: {
      rooms: { target: 100, ready: 100, setupFailed: 0, roundFailed: 1 },
      setupMs: 2000,
      steadyMs: 60_000,
      relayedPerSec: { touchMessages: 800, touchFrames: 16000, judgeMessages: 1260.4, judgeEvents: 12000 },
      relayLatency: { all: { count: 1, p50: 2, p99: 11.4, max: 39 } },
      pingSteady: { p99: 3 },
      generator: { cpuPercent: 14 },
      ...over,
    },
    errors: { total: 2, byKind: { "room-round": 1, "Ready/timeout": 1 }, samples: ["x"] },
    generatorLag: { p99: 4 },
  };
}

Deno.test("idleFigures takes RSS, KiB per session and ping from a sessions report", () => {
  const report = {
    results: {
      sessions: { target: 10000, established: 9990 },
      pingHold: { p50: 1.5, p99: 6.7, max: 41 },
      pingTimeouts: 3,
      server: { rssHoldEndMb: 396, perSessionKb: 31.4, cpuPercentHold: 9.4 },
      generator: { cpuPercentHold: 20 },
    },
    errors: { total: 3, byKind: { "ping-timeout": 1, "Authenticate/timeout": 2 }, samples: ["a", "b"] },
  };
  deepEqual(idleFigures(89 * M, report), {
    rssAfterStartMiB: 89,
    sessions: 10000,
    established: 9990,
    rssAtSessionsMiB: 396,
    kibPerSession: 31.4,
    ping: { p50: 1.5, p99: 6.7, max: 41 },
    pingTimeouts: 3,
    serverCpuPercent: 9.4,
    generatorCpuPercent: 20,
    errors: 3,
    errorKinds: { "ping-timeout": 1, "Authenticate/timeout": 2 },
    errorSamples: ["a", "b"],
  });
});

Deno.test("steadyWindow is the latest start to the earliest end over the generator processes", () => {
  const a = roomsReport(1_000_000);
  const b = roomsReport(1_000_500, { steadyMs: 59_000 });
  deepEqual(steadyWindow([a, b]), { from: 1_002_500, to: 1_061_500 });
});

Deno.test("relayFigures combines reports and /proc samples: CPU over the window, RSS after round 1, trend", () => {
  const t0 = 1_000_000;
  const samples: Sample[] = [];
  // Server at 50 % of a core (40 % on its main thread), the machine at 120 %; RSS rises in round 1 then stays.
  for (let k = 0; k <= 70; k++) {
    const at = t0 + k * 1000;
    samples.push({
      at,
      rssBytes: (k < 32 ? 200 + k : 232) * M,
      cpuMs: k * 500,
      mainCpuMs: k * 400,
      machineBusyMs: k * 1200,
    });
  }
  const f = relayFigures([roomsReport(t0)], samples, 30, 2);
  equal(f.rooms, 100);
  equal(f.ready, 100);
  equal(f.failedRound, 1);
  equal(f.steadySecs, 60);
  equal(f.relayedPerSec, 2060);
  deepEqual(f.relay, { p50: 2, p99: 11.4, max: 39 });
  equal(f.serverCpuPercent, 50);
  equal(f.serverMainThreadPercent, 40);
  equal(f.machinePercent, 120);
  equal(f.peakMainThreadPercent, 40);
  equal(f.peakMachinePercent, 120);
  equal(f.otherPercent, 56);
  equal(f.rssSteadyStartMiB, 202);
  equal(f.rssAfterFirstRoundMiB, 232);
  equal(f.rssEndMiB, 232);
  equal(f.rssPeakMiB, 232);
  equal(f.rssSlopeMiBPerMin, 0);
  equal(f.errors, 2);
  equal(f.saturated, "none");
  const two = relayFigures(
    [roomsReport(t0), roomsReport(t0, { relayLatency: { all: { p50: 1, p99: 20, max: 30 } } })],
    samples,
    30,
    2,
  );
  equal(two.rooms, 200);
  deepEqual(two.relay, { p50: 2, p99: 20, max: 39 });
  equal(two.generatorCpuPercent, 28);
  deepEqual(two.errorKinds, { "room-round": 2, "Ready/timeout": 2 });
  deepEqual(two.errorSamples, ["x", "x"]);
});

Deno.test("relayFigures takes saturation from the busiest 10 s of the phase, setup included", () => {
  const t0 = 1_000_000;
  const samples: Sample[] = [];
  // Setup (before t0 + 2 s): the main thread at a full core for 12 s; then 40 %.
  for (let k = -12; k <= 70; k++) {
    const main = k < 2 ? (k + 12) * 1000 : 14_000 + (k - 2) * 400;
    samples.push({ at: t0 + k * 1000, rssBytes: M, cpuMs: main, mainCpuMs: main, machineBusyMs: (k + 12) * 1200 });
  }
  const f = relayFigures([roomsReport(t0)], samples, 30, 2);
  equal(f.serverMainThreadPercent, 40);
  equal(f.peakMainThreadPercent, 100);
  equal(f.saturated, "server event loop (main thread 100 % of a core)");
});

Deno.test("saturationVerdict names the event loop first, then the machine, then the generator", () => {
  equal(
    saturationVerdict({ serverMainThread: 97, machine: 199, generator: 95, other: 0, cores: 2 }),
    "server event loop (main thread 97 % of a core)",
  );
  equal(
    saturationVerdict({ serverMainThread: 70, machine: 190, generator: 60, other: 12, cores: 2 }),
    "machine CPU (190 % of 200 %, 12 % by other processes)",
  );
  equal(
    saturationVerdict({ serverMainThread: 30, machine: 150, generator: 93, other: null, cores: 2 }),
    "load generator (93 %)",
  );
  equal(saturationVerdict({ serverMainThread: null, machine: null, generator: 10, other: null, cores: 2 }), "none");
});
