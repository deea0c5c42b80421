import { deepEqual, equal, ok } from "node:assert/strict";
import { mib, peakPercents, readSample, rssSlopeMiBPerMin, type Sample, Sampler, windowFigures } from "./sampler.ts";

const M = 1024 * 1024;
const s = (at: number, rssMiB: number, cpuMs: number, mainCpuMs: number, busy: number | null): Sample => ({
  at,
  rssBytes: rssMiB * M,
  cpuMs,
  mainCpuMs,
  machineBusyMs: busy,
});

Deno.test("readSample reads this process's RSS, process and main-thread CPU; null for a missing pid", () => {
  const me = readSample(Deno.pid, 5)!;
  equal(me.at, 5);
  ok(me.rssBytes > 1024 * 1024);
  ok(me.cpuMs >= me.mainCpuMs && me.mainCpuMs >= 0);
  ok(me.machineBusyMs !== null && me.machineBusyMs > 0);
  equal(readSample(2 ** 30), null);
});

Deno.test("windowFigures: CPU over wall time between the first and last sample inside the window", () => {
  const samples = [
    s(0, 100, 0, 0, 0),
    s(1000, 110, 500, 400, 1000),
    s(3000, 130, 1500, 1200, 4000),
    s(5000, 120, 2500, 2000, 7000),
    s(9000, 500, 9000, 9000, 9000),
  ];
  const w = windowFigures(samples, 1000, 5000)!;
  deepEqual(w, {
    count: 3,
    cpuPercent: 50,
    mainThreadPercent: 40,
    machinePercent: 150,
    rssFirstBytes: 110 * M,
    rssLastBytes: 120 * M,
    rssPeakBytes: 130 * M,
  });
  equal(windowFigures(samples, 1500, 2500), null);
  equal(windowFigures([s(0, 1, 0, 0, null), s(10, 1, 5, 5, null)], 0, 10)!.machinePercent, null);
});

Deno.test("rssSlopeMiBPerMin is the least-squares trend: near 0 when flat, 1 for 1 MiB a minute", () => {
  const flat = [0, 1, 2, 3].map((k) => s(k * 60_000, 200 + (k % 2), 0, 0, 0));
  equal(rssSlopeMiBPerMin(flat, 0, 180_000), 0.2);
  const growing = [0, 1, 2, 3].map((k) => s(k * 60_000, 200 + k, 0, 0, 0));
  equal(rssSlopeMiBPerMin(growing, 0, 180_000), 1);
  equal(rssSlopeMiBPerMin(growing, 0, 30_000), null);
  equal(mib(1.25 * M), 1.3);
});

Deno.test("Sampler keeps the readings of its reader and samples once more when stopped", () => {
  let n = 0;
  const sampler = new Sampler(42, (pid) => (pid === 42 && n++ < 2 ? s(n, 1, 0, 0, 0) : null));
  sampler.sample();
  sampler.sample();
  sampler.sample();
  equal(sampler.samples.length, 2);
  sampler.start(60_000);
  sampler.stop();
  equal(sampler.samples.length, 2);
});

Deno.test("peakPercents is the busiest stretch of at least the span, main thread and machine", () => {
  const samples = [0, 2, 4, 6, 8, 10, 12, 14].map((sec) =>
    s(sec * 1000, 1, 0, sec <= 6 ? sec * 200 : 1200 + (sec - 6) * 900, sec * 1500)
  );
  // Main thread: 20 % until 6 s, then 90 %; the best 4 s stretch is 90 %.
  deepEqual(peakPercents(samples, 4000), { mainThread: 90, machine: 150 });
  equal(peakPercents(samples, 60_000), null);
  deepEqual(peakPercents([s(0, 1, 0, 0, null), s(5000, 1, 0, 2500, null)], 5000), { mainThread: 50, machine: null });
});
