/**
 * RPE (re:PhiEdit) event lists to animations, with prpr's rules: times as
 * beat triples `[whole, numerator, denominator]` through the BPM list, easing
 * numbers through {@link RPE_TWEEN_MAP}, `easingLeft..easingRight` as a
 * clamped tween, `bezier` events as cubic-bezier tweens, and speed events
 * integrated into the line's height.
 *
 * @module
 */

import { evalAnimOr } from "../../../static/chart/chart_model.js";
import {
  anim,
  bezier,
  chainAnims,
  clamped,
  emptyAnim,
  EPS,
  HEIGHT_RATIO,
  kf,
  mapValues,
  timeAtBeats,
  TWEEN,
} from "../model/build.ts";
import type { Anim, AnimFloat, BpmList, Color, Keyframe } from "../model/types.ts";
import type { Budget } from "./limits.ts";
import { fail, type JsonObj } from "./json_read.ts";

/** RPE easing number -> prpr tween id (0 and 1 linear; then Out/In pairs as RPE lists them). */
export const RPE_TWEEN_MAP: readonly number[] = [
  2,
  2,
  4,
  3,
  7,
  6,
  5,
  8,
  10,
  9,
  13,
  12,
  11,
  14,
  16,
  15,
  19,
  18,
  22,
  21,
  25,
  24,
  23,
  26,
  28,
  27,
  31,
  30,
  32,
  29,
];

/** RPE canvas width and height (coordinates are pixels from the centre). */
export const RPE_WIDTH = 1350;
/** See {@link RPE_WIDTH}. */
export const RPE_HEIGHT = 900;
/** RPE speed unit -> height per second. */
export const SPEED_RATIO = 10 / 45 / HEIGHT_RATIO;

/** The tween id of an RPE easing number (unknown numbers are linear). */
export function rpeTween(easing: number): number {
  return RPE_TWEEN_MAP[Math.max(Math.trunc(easing), 1)] ?? RPE_TWEEN_MAP[0]!;
}

/** Beats of a `[whole, numerator, denominator]` triple (a zero denominator counts as no fraction). */
export function beats(o: JsonObj, key: string): number {
  const v = o.raw(key);
  if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === "number" && Number.isFinite(x))) {
    fail(o.pathOf(key), "a beat triple [whole, numerator, denominator]", v);
  }
  const [i, n, d] = v as [number, number, number];
  return d === 0 ? i : i + n / d;
}

/** Seconds of a beat triple. */
export function timeOf(bpm: BpmList, o: JsonObj, key: string): number {
  return timeAtBeats(bpm, beats(o, key));
}

/** How event values are read. */
export type ValueOf<T> = (e: JsonObj, key: "start" | "end") => T;

/** Numbers. */
export const numberValue: ValueOf<number> = (e: JsonObj, k: "start" | "end"): number => e.num(k);
/** Strings (text events). */
export const stringValue: ValueOf<string> = (e: JsonObj, k: "start" | "end"): string => e.str(k);
/** `[r, g, b]` 0..255 -> an opaque colour. */
export const colorValue: ValueOf<Color> = (e: JsonObj, k: "start" | "end"): Color => {
  const v = e.raw(k);
  if (!Array.isArray(v) || v.length < 3 || !v.slice(0, 3).every((x) => typeof x === "number")) {
    fail(e.pathOf(k), "a colour [r, g, b]", v);
  }
  const [r, g, b] = v as number[];
  return { r: r! / 255, g: g! / 255, b: b! / 255, a: 1 };
};

/** One event list -> keyframes (start eased towards end, end held), sorted by start. */
export function eventsAnim<T extends number | string | Color>(
  bpm: BpmList,
  list: JsonObj[],
  value: ValueOf<T>,
  budget: Budget,
  dflt?: T,
): Anim<T> {
  budget.keyframes(list.length * 2 + 1);
  const evs = list.map((e) => ({ e, start: beats(e, "startTime") })).sort((a, b) => a.start - b.start);
  const kfs: Keyframe<T>[] = [];
  if (dflt !== undefined && evs.length > 0 && evs[0]!.start !== 0) kfs.push(kf(0, dflt, TWEEN.hold));
  for (const { e, start } of evs) {
    const time = timeAtBeats(bpm, start);
    const v = value(e, "start");
    if (e.int("bezier", 0) !== 0) {
      const p = e.arr("bezierPoints", true);
      const pt = (i: number) => (typeof p[i] === "number" ? p[i] as number : 0);
      kfs.push(kf(time, v, bezier([pt(0), pt(1)], [pt(2), pt(3)])));
    } else {
      const id = rpeTween(e.num("easingType", 1));
      const left = e.num("easingLeft", 0), right = e.num("easingRight", 1);
      kfs.push(kf(time, v, Math.abs(left) < EPS && Math.abs(right - 1) < EPS ? id : clamped(id, left, right)));
    }
    kfs.push(kf(timeOf(bpm, e, "endTime"), value(e, "end"), TWEEN.hold));
  }
  return anim(kfs);
}

/** Number events of every layer that has them, stacked (values add), scaled by `factor`. */
export function layeredAnim(bpm: BpmList, layers: JsonObj[], key: string, factor: number, budget: Budget): AnimFloat {
  const anims = layers.filter((l) => l.has(key)).map((l) => eventsAnim(bpm, l.objs(key), numberValue, budget))
    .filter((a) => a.keyframes.length > 0);
  const a = chainAnims(anims, () => emptyAnim());
  mapValues(a, (v) => v * factor);
  return a;
}

/**
 * Speed events of every layer -> the line's height: the speed curve (stacked layers, linear within an event) is
 * integrated exactly between its keyframes and zero crossings; each segment's height curve is a clamped quadratic.
 */
export function heightFromSpeed(bpm: BpmList, layers: JsonObj[], maxTime: number, budget: Budget): AnimFloat {
  const anims = layers.filter((l) => l.has("speedEvents")).map((l) => {
    const list = l.objs("speedEvents");
    budget.keyframes(list.length * 2);
    const kfs: Keyframe<number>[] = [];
    const evs = list.map((e) => ({ e, start: beats(e, "startTime") })).sort((a, b) => a.start - b.start);
    for (const { e, start } of evs) {
      kfs.push(kf(timeAtBeats(bpm, start), e.num("start"), TWEEN.linear));
      kfs.push(kf(timeOf(bpm, e, "endTime"), e.num("end"), TWEEN.hold));
    }
    return anim(kfs);
  }).filter((a) => a.keyframes.length > 0);
  if (anims.length === 0) return emptyAnim();
  let pts = [...new Set([...anims.flatMap((a) => a.keyframes.map((k) => k.time)), maxTime])].sort((a, b) => a - b);
  const speed = chainAnims(anims, () => emptyAnim());
  mapValues(speed, (v) => v * SPEED_RATIO);
  const at = (t: number) => evalAnimOr(speed, t, 0);
  const crossings: number[] = [];
  for (let i = 0; i + 1 < pts.length; i++) {
    const [now, end] = [pts[i]!, pts[i + 1]!];
    const s = at(now), e = at(end - 1e-4);
    if (Math.sign(s) * Math.sign(e) < 0 && Math.abs(s - e) > EPS) crossings.push(now + (end - now) * (s / (s - e)));
  }
  pts = [...new Set([...pts, ...crossings])].sort((a, b) => a - b);
  budget.keyframes(pts.length);
  const kfs: Keyframe<number>[] = [];
  let height = 0;
  for (let i = 0; i + 1 < pts.length; i++) {
    const [now, end] = [pts[i]!, pts[i + 1]!];
    const s = at(now), e = at(end - 1e-4);
    if (Math.abs(s - e) < EPS) kfs.push(kf(now, height, TWEEN.linear));
    else if (Math.abs(s) > Math.abs(e)) kfs.push(kf(now, height, clamped(TWEEN.quadOut, 0, 1 - e / s)));
    else kfs.push(kf(now, height, clamped(TWEEN.quadIn, s / e, 1)));
    height += (s + e) * (end - now) / 2;
  }
  kfs.push(kf(maxTime, height, TWEEN.hold));
  return anim(kfs);
}

/** RPE control curves (`alphaControl`, ...): keyframes at `x` (a height) of the value named `key`. */
export function ctrlAnim(list: JsonObj[], key: string, budget: Budget): AnimFloat {
  budget.keyframes(list.length);
  const vals = list.map((c) => c.num(key));
  // The editor's default curve (two points at 1.0 with easing 1) means "no control".
  if (list.length === 0 || (list.length === 2 && list[0]!.num("easing", 1) === 1 && Math.abs(vals[0]! - 1) < 1e-4)) {
    return emptyAnim();
  }
  return anim(list.map((c, i) => kf(c.num("x"), vals[i]!, rpeTween(c.num("easing", 1)))));
}
