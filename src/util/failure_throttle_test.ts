import { equal } from "node:assert/strict";
import { FailureThrottle } from "./failure_throttle.ts";

const options = { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 8000, budget: 10, budgetWindowMs: 100_000 };

Deno.test("FailureThrottle: a key waits after its free failures, doubling up to the maximum; success forgets it", () => {
  const t = new FailureThrottle(options);
  for (let i = 0; i < 3; i++) {
    equal(t.wait("a", 0), 0);
    t.failed("a", 0);
  }
  equal(t.wait("a", 0), 0, "three failures are free");
  t.failed("a", 0);
  equal(t.wait("a", 0), 1000);
  equal(t.wait("b", 0), 0, "other keys are not held back");
  t.failed("a", 1000);
  equal(t.wait("a", 1000), 2000);
  t.failed("a", 3000);
  t.failed("a", 7000);
  equal(t.wait("a", 7000), 8000, "capped");
  t.succeeded("a");
  equal(t.wait("a", 7000), 0);
});

Deno.test("FailureThrottle: failures from many keys share one budget that refills over its window", () => {
  const t = new FailureThrottle(options);
  for (let i = 0; i < 10; i++) t.failed(`k${i}`, 0);
  equal(t.remainingBudget(0), 0);
  equal(t.wait("fresh", 0), 10_000, "everyone waits for the next failure the budget allows");
  equal(t.wait("fresh", 10_000), 0);
  t.failed("fresh", 10_000);
  equal(t.wait("other", 10_000), 10_000);
  equal(t.remainingBudget(110_000), 10);
});
