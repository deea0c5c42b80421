import { deepEqual, equal, rejects } from "node:assert/strict";
import { ManualClock } from "./clock.ts";
import { hedged } from "./hedge.ts";

/** A call whose every run is recorded and settled by the test. */
function calls<T>() {
  const runs: { signal: AbortSignal; resolve: (v: T) => void; reject: (e: Error) => void }[] = [];
  const call = (signal: AbortSignal) =>
    new Promise<T>((resolve, reject) => {
      runs.push({ signal, resolve, reject });
    });
  return { runs, call };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("hedged: a call that answers before the delay runs once", async () => {
  const clock = new ManualClock();
  const { runs, call } = calls<string>();
  const p = hedged(clock, 2000, call);
  clock.advance(1999);
  runs[0]!.resolve("first");
  equal(await p, "first");
  clock.advance(5000);
  equal(runs.length, 1);
});

Deno.test("hedged: a stalled call gets a second copy after the delay; the first answer wins, the other is aborted", async () => {
  const clock = new ManualClock();
  const { runs, call } = calls<string>();
  const p = hedged(clock, 2000, call);
  clock.advance(1999);
  equal(runs.length, 1);
  clock.advance(1);
  equal(runs.length, 2);
  runs[1]!.resolve("second");
  equal(await p, "second");
  deepEqual(runs.map((r) => r.signal.aborted), [true, false]);
  // The first copy answering late changes nothing.
  runs[0]!.resolve("late");
  await tick();
  equal(await p, "second");
});

Deno.test("hedged: the slow first call may still win", async () => {
  const clock = new ManualClock();
  const { runs, call } = calls<number>();
  const p = hedged(clock, 100, call);
  clock.advance(100);
  runs[0]!.resolve(1);
  equal(await p, 1);
  deepEqual(runs.map((r) => r.signal.aborted), [false, true]);
});

Deno.test("hedged: an early failure starts the second call at once; both failing rejects with the last error", async () => {
  const clock = new ManualClock();
  const { runs, call } = calls<number>();
  const p = hedged(clock, 2000, call);
  p.catch(() => {});
  runs[0]!.reject(new Error("refused"));
  await tick();
  equal(runs.length, 2);
  runs[1]!.reject(new Error("timed out"));
  await rejects(p, /timed out/);
  clock.advance(5000);
  equal(runs.length, 2);
});

Deno.test("hedged: one copy failing while the other runs waits for the other", async () => {
  const clock = new ManualClock();
  const { runs, call } = calls<number>();
  const p = hedged(clock, 10, call);
  clock.advance(10);
  runs[0]!.reject(new Error("reset"));
  await tick();
  runs[1]!.resolve(7);
  equal(await p, 7);
});
