import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { AvgPeakSeries, exactQuantile, FixedHistogram, Histogram, perSecond } from "./stats.ts";
import { SeededRandom } from "../util/random.ts";
import { LATENCY_BOUNDS_MS, LatencyHistogram } from "../server/counters.ts";

Deno.test("exactQuantile uses the nearest rank", () => {
  const v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  equal(exactQuantile(v, 0.5), 5);
  equal(exactQuantile(v, 0.99), 10);
  equal(exactQuantile(v, 0), 1);
  equal(exactQuantile([], 0.5), null);
});

Deno.test("Histogram quantiles are within 1.6 % of the exact ones", () => {
  const random = new SeededRandom(42);
  const h = new Histogram();
  const values: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    // Log-uniform from 1 µs to 10 s exercises the linear and the logarithmic ranges.
    const v = 10 ** (random.next() * 7 - 3);
    values.push(v);
    h.record(v);
  }
  values.sort((a, b) => a - b);
  for (const q of [0.01, 0.5, 0.9, 0.99, 0.999]) {
    const exact = exactQuantile(values, q)!;
    const approx = h.quantile(q)!;
    // Bucket upper bounds never undershoot; the linear range is exact to 1 µs.
    ok(approx >= exact - 1e-9, `q=${q}: ${approx} < ${exact}`);
    ok(approx - exact <= Math.max(exact * 0.016, 0.001 + 1e-9), `q=${q}: ${approx} vs ${exact}`);
  }
  equal(h.count, 20_000);
  equal(h.max, values.at(-1));
});

Deno.test("Histogram summary of an empty histogram is all null", () => {
  deepEqual(new Histogram().summary(), {
    count: 0,
    min: null,
    mean: null,
    p50: null,
    p90: null,
    p99: null,
    p999: null,
    max: null,
  });
});

Deno.test("Histogram summary, merge, reset and clamping", () => {
  const a = new Histogram();
  const b = new Histogram();
  for (const v of [1, 2, 3]) a.record(v);
  for (const v of [100, -5, Number.NaN]) b.record(v);
  a.merge(b);
  const s = a.summary();
  equal(s.count, 5);
  equal(s.min, 0);
  equal(s.max, 100);
  equal(s.mean, 21.2);
  // Percentiles report the upper bound of their bucket (1/64 wide), so never less than the sample.
  ok(s.p50! >= 2 && s.p50! <= 2 * (1 + 1 / 64), `p50 ${s.p50}`);
  equal(s.p99, 100);
  a.reset();
  equal(a.count, 0);
  // Huge values stay in range.
  a.record(1e12);
  equal(a.quantile(0.5), 1e12);
});

Deno.test("FixedHistogram counts per bucket with the spec's 9 buckets", () => {
  const h = new FixedHistogram();
  for (const v of [0.5, 1, 4.9, 5, 49, 50, 700, 4999, 5000, 10_000]) h.record(v);
  deepEqual(h.buckets().map((b) => [b.le, b.count]), [
    [1, 1],
    [5, 2],
    [10, 1],
    [50, 1],
    [100, 1],
    [500, 0],
    [1000, 1],
    [5000, 1],
    [null, 2],
  ]);
  throws(() => new FixedHistogram([5, 1]), RangeError);
});

Deno.test("FixedHistogram uses the server's latency bounds and buckets every value as the server does", () => {
  const h = new FixedHistogram();
  deepEqual(h.bounds, [...LATENCY_BOUNDS_MS]);
  const server = new LatencyHistogram();
  for (const v of [0, 0.99, 1, 5, 9.99, 10, 99, 100, 499, 500, 999, 1000, 4999.9, 5000, 1e6]) {
    h.record(v);
    server.record(v);
  }
  deepEqual(h.buckets().map((b) => b.count), server.buckets);
});

Deno.test("perSecond rounds to one decimal and handles an empty span", () => {
  equal(perSecond(1000, 3000), 333.3);
  equal(perSecond(5, 0), 0);
});

Deno.test("AvgPeakSeries keeps average and peak", () => {
  const s = new AvgPeakSeries();
  deepEqual(s.get(), { avg: 0, peak: 0 });
  for (const v of [1, 4, 2.5]) s.add(v);
  deepEqual(s.get(), { avg: 2.5, peak: 4 });
});
