/**
 * Constructors of model values with prpr's defaults (`Anim::default`,
 * `Anim::fixed`, `Anim::chain`, `ChartInfo::default`, `BpmList::new`, ...).
 *
 * @module
 */

import { makeBezierTween, makeClampedTween } from "../../../static/chart/chart_model.js";
import type { AnimValue } from "../../../static/chart/chart_model.js";
import type {
  Anim,
  AnimFloat,
  AnimVector,
  BpmList,
  ChartInfo,
  ChartObject,
  CtrlObject,
  JudgeLine,
  Keyframe,
  Note,
  NoteKind,
  TweenFn,
} from "./types.ts";

/** Tween ids used by the parsers (prpr's table: 0 hold, 1 constant, 2 linear, 6 QuadIn, 7 QuadOut). */
export const TWEEN = { hold: 0, linear: 2, quadIn: 6, quadOut: 7 } as const;

/** prpr's `HEIGHT_RATIO`: screen height of one unit of note height. */
export const HEIGHT_RATIO = 0.83175;
/** prpr's `EPS`. */
export const EPS = 1e-5;

/** `TweenFn::TweenId(id)`. */
export function tweenId(id: number): TweenFn {
  return { TweenId: id };
}

/** `TweenFn::Bezier(BezierTween::new(p1, p2))`. */
export function bezier(p1: [number, number], p2: [number, number]): TweenFn {
  return { Bezier: makeBezierTween(p1, p2) };
}

/** `TweenFn::Clamped(ClampedTween::new(id, start..end))`. */
export function clamped(id: number, start: number, end: number): TweenFn {
  return { Clamped: makeClampedTween(id, start, end) };
}

/** A keyframe with an easing id or tween. */
export function kf<T extends AnimValue>(time: number, value: T, tween: number | TweenFn): Keyframe<T> {
  return { time, value, tween: typeof tween === "number" ? tweenId(tween) : tween };
}

/** `Anim::new(keyframes)`. */
export function anim<T extends AnimValue>(keyframes: Keyframe<T>[]): Anim<T> {
  return { time: 0, keyframes, cursor: 0, next: null };
}

/** `Anim::default()`: no keyframes. */
export function emptyAnim<T extends AnimValue = number>(): Anim<T> {
  return { time: 0, keyframes: [], cursor: 0, next: null };
}

/** `Anim::fixed(v)`: one keyframe at 0 holding `v`. */
export function fixedAnim(v: number): AnimFloat {
  return { time: 0, keyframes: [{ time: 0, value: v, tween: tweenId(TWEEN.hold) }], cursor: 0, next: null };
}

/** `Anim::chain(layers)`: each layer's value is added to the previous (RPE event layers). */
export function chainAnims<A extends { next: A | null }>(layers: A[], empty: () => A): A {
  if (layers.length === 0) return empty();
  for (let i = 0; i + 1 < layers.length; i++) layers[i]!.next = layers[i + 1]!;
  layers[layers.length - 1]!.next = null;
  return layers[0]!;
}

/** Applies `f` to every keyframe value of an animation and its chained layers. */
export function mapValues(a: AnimFloat, f: (v: number) => number): void {
  for (let x: AnimFloat | null = a; x; x = x.next) for (const k of x.keyframes) k.value = f(k.value);
}

/** `AnimVector::default()`. */
export function emptyVector(): AnimVector {
  return { x: emptyAnim(), y: emptyAnim() };
}

/** `Object::default()`. */
export function defaultObject(): ChartObject {
  return { alpha: emptyAnim(), scale: emptyVector(), rotation: emptyAnim(), translation: emptyVector() };
}

/** `CtrlObject::default()`. */
export function defaultCtrl(): CtrlObject {
  return { alpha: emptyAnim(), size: emptyAnim(), pos: emptyAnim(), y: emptyAnim() };
}

/** `JudgeLine::default()` with the given parts. */
export function judgeLine(parts: Partial<JudgeLine>): JudgeLine {
  return {
    object: defaultObject(),
    ctrl_obj: defaultCtrl(),
    kind: "Normal",
    height: emptyAnim(),
    incline: emptyAnim(),
    color: emptyAnim(),
    notes: [],
    parent: null,
    z_index: 0,
    show_below: false,
    attach_ui: null,
    ...parts,
  };
}

/** `Note::default()` (speed 1, above) with the given parts. */
export function note(kind: NoteKind, time: number, parts: Partial<Note> = {}): Note {
  return {
    object: defaultObject(),
    kind,
    time,
    height: 0,
    speed: 1,
    above: true,
    multiple_hint: false,
    fake: false,
    hitsound: null,
    ...parts,
  };
}

/** `ChartInfo::default()`. */
export function defaultChartInfo(): ChartInfo {
  return {
    id: null,
    uploader: null,
    name: "UK",
    difficulty: 10,
    level: "UK Lv.10",
    charter: "UK",
    composer: "UK",
    illustrator: "UK",
    chart: "chart.json",
    format: null,
    music: "song.mp3",
    illustration: "background.png",
    unlock_video: null,
    preview_start: 0,
    preview_end: null,
    aspect_ratio: 16 / 9,
    background_dim: 0.6,
    line_length: 6,
    offset: 0,
    tip: null,
    tags: [],
    intro: "",
    hold_partial_cover: false,
    note_uniform_scale: false,
    created: null,
    updated: null,
    chart_updated: null,
  };
}

/** `BpmList::default()`: 120 BPM from beat 0. */
export function defaultBpmList(): BpmList {
  return { elements: [[0, 0, 120]], cursor: 0 };
}

/** `BpmList::new([(beats, bpm)])`: the time of each change accumulated from the previous BPM. */
export function bpmList(changes: readonly (readonly [number, number])[]): BpmList {
  if (changes.length === 0) return defaultBpmList();
  const elements: [number, number, number][] = [];
  let time = 0;
  let lastBeats = 0;
  let lastBpm: number | null = null;
  for (const [beats, bpm] of changes) {
    if (lastBpm !== null) time += (beats - lastBeats) * (60 / lastBpm);
    lastBeats = beats;
    lastBpm = bpm;
    elements.push([beats, time, bpm]);
  }
  return { elements, cursor: 0 };
}

/** `BpmList::time_at_beats`: seconds at `beats` (from the last change at or before it, else the first). */
export function timeAtBeats(list: BpmList, beats: number): number {
  const els = list.elements;
  let lo = 0, hi = els.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (els[mid]![0] <= beats) lo = mid;
    else hi = mid - 1;
  }
  const [start, time, bpm] = els[lo]!;
  return time + (beats - start) * (60 / bpm);
}
