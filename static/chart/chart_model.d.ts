// Types of chart_model.js (the JSON chart model of `GET /chart/{id}.json`, docs/chart.md).

/** `Color` of the model. */
export interface Color {
  r: number;
  g: number;
  b: number;
  a: number;
}
/** `BezierTween`: a cubic-bezier easing with its x sample table. */
export interface BezierTween {
  sample_table: number[];
  p1: [number, number];
  p2: [number, number];
}
/** `Range<f32>` as serde writes it. */
export interface Range {
  start: number;
  end: number;
}
/** `ClampedTween(id, x range, y range)`. */
export type ClampedTween = [number, Range, Range];
/** `TweenFn`, externally tagged. */
export type TweenFn = { TweenId: number } | { Bezier: BezierTween } | { Clamped: ClampedTween };
/** Value types an animation can hold. */
export type AnimValue = number | string | Color;
/** `Keyframe<T>`. */
export interface Keyframe<T extends AnimValue = number> {
  time: number;
  value: T;
  tween: TweenFn;
}
/** `Anim<T>`; `next` stacks another layer whose value is added. */
export interface Anim<T extends AnimValue = number> {
  time: number;
  keyframes: Keyframe<T>[];
  cursor: number;
  next: Anim<T> | null;
}
/** `AnimVector`. */
export interface AnimVector {
  x: Anim<number>;
  y: Anim<number>;
}
/** The parts of a judge line or note the helpers read. */
export interface ObjectLike {
  alpha: Anim<number>;
  scale: AnimVector;
  rotation: Anim<number>;
  translation: AnimVector;
}
/** A judge line as far as the helpers need it. */
export interface LineLike {
  object: ObjectLike;
  height: Anim<number>;
  parent: number | null;
}
/** A note as far as the helpers need it. */
export interface NoteLike {
  object: ObjectLike;
  kind: string | { Hold: { end_time: number; end_height: number } };
  height: number;
  speed: number;
}
/** Where a line is at a time. */
export interface LineState {
  x: number;
  y: number;
  rotation: number;
  alpha: number;
  height: number;
  scale_x: number;
  scale_y: number;
}
/** Where a note is relative to its line. */
export interface NoteOffset {
  x: number;
  y: number;
  end_y: number | null;
  alpha: number;
}

/** The 33 easing functions of `TweenFn::TweenId`. */
export const TWEEN_FUNCTIONS: readonly ((x: number) => number)[];
/** A bezier easing as the model stores it. */
export function makeBezierTween(p1: readonly [number, number], p2: readonly [number, number]): BezierTween;
/** A clamped easing as the model stores it. */
export function makeClampedTween(id: number, start: number, end: number): ClampedTween;
/** Eases progress `x` with a tween. */
export function ease(tween: TweenFn, x: number): number;
/** Interpolates two keyframe values. */
export function tweenValue<T extends AnimValue>(a: T, b: T, t: number): T;
/** Index of the keyframe in force at `t`. */
export function keyframeIndex(keyframes: readonly { time: number }[], t: number): number;
/** Value of an animation at `t`, `undefined` when it has no keyframes. */
export function evalAnim<T extends AnimValue>(anim: Anim<T>, t: number): T | undefined;
/** Value of an animation at `t`, or `fallback`. */
export function evalAnimOr<T extends AnimValue>(anim: Anim<T>, t: number, fallback: T): T;
/** Where judge line `index` is at chart time `t`. */
export function lineStateAt(
  chart: { lines: readonly LineLike[] },
  info: { aspect_ratio: number } | null,
  index: number,
  t: number,
): LineState;
/** Where a note is relative to its line. */
export function noteOffsetAt(
  note: NoteLike,
  lineHeight: number,
  info: { aspect_ratio: number } | null,
  t: number,
): NoteOffset;
