import { deepEqual, equal } from "node:assert/strict";
import { Counters, LatencyHistogram } from "./counters.ts";

Deno.test("LatencyHistogram has 9 buckets from under 1 ms to 5000 ms and over", () => {
  const h = new LatencyHistogram();
  for (const ms of [0.2, 1, 4.9, 7, 49, 99, 499, 999, 4999, 5000, 60000]) h.record(ms);
  deepEqual(LatencyHistogram.labels(), [
    "<1ms",
    "<5ms",
    "<10ms",
    "<50ms",
    "<100ms",
    "<500ms",
    "<1000ms",
    "<5000ms",
    ">=5000ms",
  ]);
  deepEqual(h.buckets, [1, 2, 1, 1, 1, 1, 1, 1, 2]);
  equal(h.toJSON().count, 11);
  equal(h.toJSON().max_ms, 60000);
});

Deno.test("Counters report only non-zero invariant counters", () => {
  const c = new Counters();
  c.inc("request_received", 3);
  deepEqual(c.violations(), {});
  c.inc("critical_compat_drop");
  deepEqual(c.violations(), { critical_compat_drop: 1 });
});
