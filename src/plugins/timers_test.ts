import { deepEqual, equal, throws } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { MAX_TIMERS, PluginTimers } from "./timers.ts";

Deno.test("plugin timers fire once, can be replaced and cleared, and are bounded", () => {
  const clock = new ManualClock();
  const fired: string[] = [];
  const timers = new PluginTimers(clock, (id) => fired.push(id));
  timers.set(100, "a");
  timers.set(50, "b");
  timers.set(200, "b");
  timers.set(10, "c");
  timers.clear("c");
  timers.clear("unknown");
  clock.advance(100);
  deepEqual(fired, ["a"]);
  clock.advance(100);
  deepEqual(fired, ["a", "b"]);
  equal(timers.size, 0);
  throws(() => timers.set(-1, "x"), /delay-ms/);
  throws(() => timers.set(1, ""), /timer-id/);
  for (let i = 0; i < MAX_TIMERS; i++) timers.set(1000, `t${i}`);
  throws(() => timers.set(1000, "one more"), /at most/);
  timers.clearAll();
  clock.advance(2000);
  equal(fired.length, 2);
});
