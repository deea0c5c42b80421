import { deepEqual, equal } from "node:assert/strict";
import { ManualClock } from "./clock.ts";

Deno.test("ManualClock fires timers in due order during advance", () => {
  const clock = new ManualClock(1000);
  const fired: string[] = [];
  clock.setTimeout(() => fired.push(`b@${clock.monotonic()}`), 20);
  clock.setTimeout(() => fired.push(`a@${clock.monotonic()}`), 10);
  const c = clock.setTimeout(() => fired.push("c"), 15);
  clock.clearTimeout(c);
  clock.advance(5);
  deepEqual(fired, []);
  clock.advance(20);
  deepEqual(fired, ["a@10", "b@20"]);
  equal(clock.now(), 1025);
  equal(clock.pending, 0);
});

Deno.test("ManualClock fires timers scheduled by timers within the same advance", () => {
  const clock = new ManualClock();
  const fired: number[] = [];
  clock.setTimeout(() => {
    fired.push(clock.monotonic());
    clock.setTimeout(() => fired.push(clock.monotonic()), 5);
  }, 5);
  clock.advance(10);
  deepEqual(fired, [5, 10]);
});

Deno.test("ManualClock keeps equal deadlines in creation order", () => {
  const clock = new ManualClock();
  const fired: number[] = [];
  for (let i = 0; i < 5; i++) clock.setTimeout(() => fired.push(i), 7);
  clock.advance(7);
  deepEqual(fired, [0, 1, 2, 3, 4]);
});
