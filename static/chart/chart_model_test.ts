import { deepEqual, equal, ok } from "node:assert/strict";
import {
  ease,
  evalAnim,
  evalAnimOr,
  keyframeIndex,
  lineStateAt,
  makeBezierTween,
  makeClampedTween,
  noteOffsetAt,
  TWEEN_FUNCTIONS,
} from "./chart_model.js";
import type { Anim, Keyframe } from "./chart_model.js";

const kf = <T extends number | string | { r: number; g: number; b: number; a: number }>(
  time: number,
  value: T,
  id = 2,
): Keyframe<T> => ({ time, value, tween: { TweenId: id } });
const anim = <T extends number | string | { r: number; g: number; b: number; a: number }>(
  ...keyframes: Keyframe<T>[]
): Anim<T> => ({ time: 0, keyframes, cursor: 0, next: null });
const near = (a: number, b: number, eps = 1e-6) => ok(Math.abs(a - b) <= eps, `${a} vs ${b}`);

Deno.test("easings: 33 functions from 0 to 1 (hold stays, constant jumps), known midpoints", () => {
  equal(TWEEN_FUNCTIONS.length, 33);
  for (let i = 2; i < 33; i++) {
    near(TWEEN_FUNCTIONS[i]!(0), 0, 1e-3);
    near(TWEEN_FUNCTIONS[i]!(1), 1, 1e-3);
  }
  equal(TWEEN_FUNCTIONS[0]!(0.7), 0);
  equal(TWEEN_FUNCTIONS[1]!(0.2), 1);
  near(TWEEN_FUNCTIONS[6]!(0.5), 0.25); // QuadIn
  near(TWEEN_FUNCTIONS[7]!(0.5), 0.75); // QuadOut
  near(TWEEN_FUNCTIONS[8]!(0.25), 0.125); // QuadInOut
  // Bezier (0.25, 0.1)-(0.25, 1) is CSS "ease": about 0.8024 at x = 0.5.
  near(ease({ Bezier: makeBezierTween([0.25, 0.1], [0.25, 1]) }, 0.5), 0.8024, 1e-3);
  near(ease({ Bezier: makeBezierTween([0.25, 0.1], [0.25, 1]) }, 1), 1);
  // Clamped: the part 0..0.5 of QuadIn, stretched to 0..1: (x/2)^2 / 0.25 = x^2.
  near(ease({ Clamped: makeClampedTween(6, 0, 0.5) }, 0.5), 0.25);
});

Deno.test("evalAnim: prpr's rules — before the first keyframe, between, at and after the last; empty is undefined", () => {
  const a = anim<number>(kf(1, 10), kf(3, 20, 0), kf(3, 5), kf(5, 15, 0));
  equal(evalAnim(anim(), 1), undefined);
  equal(evalAnimOr(anim(), 1, 7), 7);
  equal(evalAnim(a, 1), 10);
  equal(evalAnim(a, 2), 15); // linear 10 → 20
  equal(evalAnim(a, 2.999), 20 - 0.005);
  equal(evalAnim(a, 3), 5, "the last keyframe at a time wins (an instant jump)");
  equal(evalAnim(a, 4), 10);
  equal(evalAnim(a, 99), 15);
  equal(evalAnim(a, 0), 5, "before the first keyframe the first segment extrapolates (cursor 0), as prpr does");
  equal(keyframeIndex(a.keyframes, 3), 2);
  // Hold tween keeps the start value until the next keyframe.
  equal(evalAnim(anim<number>(kf(0, 1, 0), kf(2, 9, 0)), 1.9), 1);
});

Deno.test("evalAnim: stacked layers add, colours and strings interpolate", () => {
  const base = anim<number>(kf(0, 0), kf(2, 2, 0));
  base.next = anim<number>(kf(0, 10, 0));
  equal(evalAnim(base, 1), 11);
  deepEqual(evalAnim(anim(kf(0, { r: 0, g: 0, b: 0, a: 1 }), kf(2, { r: 1, g: 0.5, b: 0, a: 1 }, 0)), 1), {
    r: 0.5,
    g: 0.25,
    b: 0,
    a: 1,
  });
  equal(evalAnim(anim<string>(kf(0, ""), kf(2, "hello", 0)), 1.2), "hel");
  equal(evalAnim(anim<string>(kf(0, "1%P%"), kf(2, "3%P%", 0)), 1), "2");
});

Deno.test("lineStateAt: defaults, y divided by the aspect ratio, a child turned by its parent's rotation", () => {
  const obj = (x: number, y: number, rot: number) => ({
    alpha: anim<number>(),
    scale: { x: anim<number>(), y: anim<number>() },
    rotation: anim<number>(kf(0, rot, 0)),
    translation: { x: anim<number>(kf(0, x, 0)), y: anim<number>(kf(0, y, 0)) },
  });
  const chart = {
    lines: [
      { object: obj(0.5, 0, 90), height: anim<number>(kf(0, 0), kf(10, 10, 0)), parent: null },
      { object: obj(0.2, 0, 0), height: anim<number>(), parent: 0 as number | null },
      { object: obj(0, 0, 0), height: anim<number>(), parent: 2 as number | null }, // a cycle through itself is cut
    ],
  };
  const root = lineStateAt(chart, { aspect_ratio: 2 }, 0, 5);
  deepEqual([root.x, root.y, root.rotation, root.alpha, root.height, root.scale_x], [0.5, 0, 90, 1, 5, 1]);
  const child = lineStateAt(chart, { aspect_ratio: 2 }, 1, 5);
  near(child.x, 0.5);
  near(child.y, 0.2);
  equal(lineStateAt(chart, null, 2, 0).x, 0);
  const note = { object: obj(0.3, 0, 0), kind: { Hold: { end_time: 8, end_height: 8 } }, height: 6, speed: 2 };
  const off = noteOffsetAt(note, 5, { aspect_ratio: 2 }, 5);
  deepEqual([off.x, off.y, off.end_y, off.alpha], [0.3, 1, 3, 1]);
});
