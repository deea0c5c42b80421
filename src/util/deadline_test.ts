import { equal } from "node:assert/strict";
import { ManualClock } from "./clock.ts";
import { Deadline } from "./deadline.ts";

Deno.test("Deadline shares one budget between steps and abandons the step that overruns it", async () => {
  const clock = new ManualClock();
  const deadline = new Deadline(clock, 1000);
  equal(await deadline.within(Promise.resolve()), true);
  equal(await deadline.within(Promise.reject(new Error("failed, but in time"))), true);
  clock.advance(400);
  equal(deadline.remaining(), 600);
  const stuck = new Promise<void>(() => {});
  const waiting = deadline.within(stuck);
  clock.advance(599);
  await Promise.resolve();
  clock.advance(1);
  equal(await waiting, false);
  equal(deadline.remaining(), 0);
  // Past the deadline a step that is not already settled is abandoned at once.
  const late = deadline.within(new Promise(() => {}));
  clock.advance(0);
  equal(await late, false);
});
