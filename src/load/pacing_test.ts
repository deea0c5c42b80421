import { deepEqual, equal, ok } from "node:assert/strict";
import { TelemetryPacer, wireTime } from "./pacing.ts";

/** Polls a pacer at every due time up to `endMs` and records what it sends. */
function simulate(pacer: TelemetryPacer, endMs: number) {
  const touches: { at: number; frames: number; points: number; lastTime: number }[] = [];
  const judges: { at: number; count: number; lastTime: number }[] = [];
  for (let now = pacer.nextDue(); now <= endMs; now = pacer.nextDue()) {
    const out = pacer.poll(now);
    ok(out.touches || out.judges, `nothing to send at its due time ${now}`);
    if (out.touches) {
      const points = out.touches.reduce((n, f) => n + f.points.length, 0);
      touches.push({ at: now, frames: out.touches.length, points, lastTime: out.touches.at(-1)!.time });
    }
    if (out.judges) judges.push({ at: now, count: out.judges.length, lastTime: out.judges.at(-1)!.time });
  }
  return { touches, judges };
}

Deno.test("touch frames go out about once a second, 20 frames at 20 Hz per finger", () => {
  const pacer = new TelemetryPacer({ fingers: 2, notesPerSec: 0 }, 1000, 0);
  const { touches, judges } = simulate(pacer, 11_000);
  equal(judges.length, 0);
  ok(touches.length >= 9 && touches.length <= 11, `${touches.length} batches in 10 s`);
  for (const b of touches.slice(1)) {
    ok(b.frames === 20 || b.frames === 21, `batch of ${b.frames} frames`);
    equal(b.points, b.frames * 2);
  }
  // Consecutive sends are a little more than 1 s apart (the official rule is "more than 1 s").
  for (let i = 1; i < touches.length; i++) {
    const gap = touches[i]!.at - touches[i - 1]!.at;
    ok(gap > 1000 && gap <= 1050, `gap ${gap}`);
  }
});

Deno.test("judge batches are about 10 at 16 notes per second", () => {
  const pacer = new TelemetryPacer({ fingers: 0, notesPerSec: 16 }, 0, 0);
  const { judges } = simulate(pacer, 10_000);
  ok(judges.length >= 14 && judges.length <= 17, `${judges.length} batches`);
  for (const b of judges) ok(b.count >= 9 && b.count <= 11, `batch of ${b.count}`);
});

Deno.test("sparse judges go out when the oldest is more than 0.6 s old", () => {
  const pacer = new TelemetryPacer({ fingers: 0, notesPerSec: 2 }, 0, 0);
  const { judges } = simulate(pacer, 5000);
  deepEqual(judges.slice(0, 3).map((b) => [b.at, b.count]), [[601, 2], [1601, 2], [2601, 2]]);
});

Deno.test("with no finger moving, one empty frame goes out each second", () => {
  const pacer = new TelemetryPacer({ fingers: 0, notesPerSec: 0 }, 0, 0);
  const { touches } = simulate(pacer, 3500);
  deepEqual(touches.map((b) => [b.at, b.frames, b.points]), [[1, 1, 0], [1002, 1, 0], [2003, 1, 0], [3004, 1, 0]]);
});

Deno.test("the last item of each batch carries the send time since the epoch", () => {
  const epoch = 5000;
  const pacer = new TelemetryPacer({ fingers: 1, notesPerSec: 16 }, 6000, epoch, 0.5);
  const { touches, judges } = simulate(pacer, 9000);
  for (const b of [...touches, ...judges]) equal(b.lastTime, wireTime(b.at, epoch));
  equal(wireTime(6500, 5000), 1.5);
});

Deno.test("polling before the due time sends nothing; a late poll sends everything queued", () => {
  const pacer = new TelemetryPacer({ fingers: 1, notesPerSec: 0 }, 0, 0);
  const due = pacer.nextDue();
  const early = pacer.poll(due - 1);
  equal(early.touches, null);
  const late = pacer.poll(due + 5000);
  ok(late.touches && late.touches.length > 100, "a late poll sends the backlog in one batch");
  equal(pacer.queued.frames, 0);
});
