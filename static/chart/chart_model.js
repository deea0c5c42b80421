// @ts-self-types="./chart_model.d.ts"
// Chorus chart model evaluation, shared by the server (parsers need a line's
// height at a note's time) and browser pages (the spectator draws lines and
// notes at time t). Plain ES module without imports: a page loads it as is.
//
// The model is the one `GET /chart/{id}.json` serves (docs/chart.md): serde's
// JSON of the Phira chart model, snake_case, enums externally tagged, times in
// seconds. Semantics follow prpr's `Anim`: the keyframe in force is the last one
// whose time is <= t (the first one before it), its tween eases towards the
// next keyframe, and an animation's `next` (stacked RPE event layers) adds its
// own value.
"use strict";

const PI = Math.PI;
const sine = (x) => 1 - Math.cos((x * PI) / 2);
const quad = (x) => x * x;
const cubic = (x) => x * x * x;
const quart = (x) => x * x * x * x;
const quint = (x) => x * x * x * x * x;
const expo = (x) => Math.pow(2, 10 * (x - 1));
const circ = (x) => 1 - Math.sqrt(1 - x * x);
const back = (x) => (2.70158 * x - 1.70158) * x * x;
const elastic = (x) => -(Math.pow(2, 10 * x - 10) * Math.sin((x * 10 - 10.75) * ((2 * PI) / 3)));
function bounce(x) {
  const n1 = 7.5625, d1 = 2.75;
  const y = 1 - x;
  let v;
  if (y < 1 / d1) v = n1 * y * y;
  else if (y < 2 / d1) v = n1 * (y - 1.5 / d1) ** 2 + 0.75;
  else if (y < 2.5 / d1) v = n1 * (y - 2.25 / d1) ** 2 + 0.9375;
  else v = n1 * (y - 2.625 / d1) ** 2 + 0.984375;
  return 1 - v;
}
const out = (f) => (x) => 1 - f(1 - x);
const inOut = (f) => (x) => {
  const y = x * 2;
  return y < 1 ? f(y) / 2 : 1 - f(2 - y) / 2;
};

/**
 * The 33 easing functions of `TweenFn::TweenId`: 0 hold (stays at the start value), 1 constant (jumps to the end
 * value), 2 linear, then In/Out/InOut of sine, quad, cubic, quart, quint, expo, circ, back, elastic, bounce.
 */
export const TWEEN_FUNCTIONS = Object.freeze([
  () => 0,
  () => 1,
  (x) => x,
  ...[sine, quad, cubic, quart, quint, expo, circ, back, elastic, bounce].flatMap((f) => [f, out(f), inOut(f)]),
]);

const SAMPLE_TABLE_SIZE = 21;
const SAMPLE_STEP = 1 / (SAMPLE_TABLE_SIZE - 1);
const SLOPE_EPS = 1e-7;
const NEWTON_MIN_STEP = 1e-3;

function coefficients(a, b) {
  return [(a - b) * 3 + 1, b * 3 - a * 6, a * 3];
}
function sampleCurve(a, b, t) {
  const [c0, c1, c2] = coefficients(a, b);
  return ((c0 * t + c1) * t + c2) * t;
}
function slope(a, b, t) {
  const [c0, c1, c2] = coefficients(a, b);
  return (c0 * 3 * t + c1 * 2) * t + c2;
}

/** A cubic-bezier easing `{sample_table, p1, p2}` (CSS `cubic-bezier(p1, p2)`), as the model stores it. */
export function makeBezierTween(p1, p2) {
  const table = [];
  for (let i = 0; i < SAMPLE_TABLE_SIZE; i++) table.push(Math.fround(sampleCurve(p1[0], p2[0], i * SAMPLE_STEP)));
  return { sample_table: table, p1: [p1[0], p1[1]], p2: [p2[0], p2[1]] };
}

function bezierT(b, x) {
  if (x === 0 || x === 1) return x;
  const x1 = b.p1[0], x2 = b.p2[0], table = b.sample_table;
  const id = Math.min(Math.max(Math.trunc(x / SAMPLE_STEP), 0), SAMPLE_TABLE_SIZE - 2);
  const dist = (x - table[id]) / (table[id + 1] - table[id]);
  let t = SAMPLE_STEP * (id + dist);
  const s = slope(x1, x2, t);
  if (s <= SLOPE_EPS) return t;
  if (s >= NEWTON_MIN_STEP) {
    for (let i = 0; i < 4; i++) {
      const sl = slope(x1, x2, t);
      if (sl <= SLOPE_EPS) return t;
      t -= (sampleCurve(x1, x2, t) - x) / sl;
    }
    return t;
  }
  let l = SAMPLE_STEP * id, r = SAMPLE_STEP * (id + 1);
  t = (l + r) / 2;
  for (let i = 0; i < 10; i++) {
    const diff = sampleCurve(x1, x2, t) - x;
    if (Math.abs(diff) <= 1e-7) break;
    if (diff > 0) r = t;
    else l = t;
    t = (l + r) / 2;
  }
  return t;
}

/** A clamped easing `[id, {start, end}, {start: f(start), end: f(end)}]`: the part `start..end` of easing `id`. */
export function makeClampedTween(id, start, end) {
  const f = TWEEN_FUNCTIONS[id] ?? TWEEN_FUNCTIONS[2];
  return [id, { start, end }, { start: Math.fround(f(start)), end: Math.fround(f(end)) }];
}

/** Eases progress `x` (0..1 between two keyframes) with a model `TweenFn`. */
export function ease(tween, x) {
  if ("TweenId" in tween) return (TWEEN_FUNCTIONS[tween.TweenId] ?? TWEEN_FUNCTIONS[0])(x);
  if ("Bezier" in tween) {
    const b = tween.Bezier;
    return sampleCurve(b.p1[1], b.p2[1], bezierT(b, x));
  }
  const [id, range, yRange] = tween.Clamped;
  const f = TWEEN_FUNCTIONS[id] ?? TWEEN_FUNCTIONS[0];
  return (f(range.start + (range.end - range.start) * x) - yRange.start) / (yRange.end - yRange.start);
}

function tweenString(x, y, t) {
  const P = "%P%";
  if (x.includes(P) && y.includes(P)) {
    const a = x.replaceAll(P, ""), b = y.replaceAll(P, "");
    if (t >= 1) return b;
    if (t <= 0) return a;
    const va = Number.parseFloat(a) || 0, vb = Number.parseFloat(b) || 0;
    const v = va + t * (vb - va);
    return Number.isInteger(va) && Number.isInteger(vb) ? v.toFixed(0) : v.toFixed(3);
  }
  if (x === "" && y === "") return "";
  if (y === "") return tweenString(y, x.replaceAll(P, ""), 1 - t);
  const xs = [...x], ys = [...y];
  if (x === "") return ys.slice(0, Math.round(t * ys.length)).join("");
  if (y.startsWith(x)) return x + ys.slice(xs.length, Math.floor((ys.length - xs.length) * t) + xs.length).join("");
  if (x.startsWith(y)) {
    return y + xs.slice(ys.length, Math.round((xs.length - ys.length) * (1 - t)) + ys.length).join("");
  }
  return x.includes(P) ? x.replaceAll(P, "") : x;
}

/** Interpolates keyframe values (numbers, `{r,g,b,a}` colours, strings) at eased progress `t`. */
export function tweenValue(a, b, t) {
  if (typeof a === "number") return a + (b - a) * t;
  if (typeof a === "string") return tweenString(a, b, t);
  return { r: a.r + (b.r - a.r) * t, g: a.g + (b.g - a.g) * t, b: a.b + (b.b - a.b) * t, a: a.a + (b.a - a.a) * t };
}

function addValue(a, b) {
  if (typeof a === "number") return a + b;
  if (typeof a === "string") return a;
  return { r: a.r + b.r, g: a.g + b.g, b: a.b + b.b, a: a.a + b.a };
}

/** Index of the keyframe in force at `t`: the last one with time <= t, else 0. */
export function keyframeIndex(keyframes, t) {
  let lo = 0, hi = keyframes.length - 1;
  if (hi < 0 || keyframes[0].time > t) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (keyframes[mid].time <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const MAX_CHAIN = 64;

/**
 * The value of an animation at time `t` (seconds), or `undefined` when it has no keyframes (the drawer then uses
 * the property's default: alpha 1, scale 1, others 0). Pure: the model is not changed.
 */
export function evalAnim(anim, t) {
  let total;
  let a = anim;
  for (let depth = 0; a && depth < MAX_CHAIN; depth++, a = a.next) {
    const kfs = a.keyframes;
    if (kfs.length === 0) continue;
    const i = keyframeIndex(kfs, t);
    const k1 = kfs[i];
    let v;
    if (i === kfs.length - 1) v = k1.value;
    else {
      const k2 = kfs[i + 1];
      const p = (t - k1.time) / (k2.time - k1.time);
      v = Number.isNaN(p) ? k1.value : tweenValue(k1.value, k2.value, ease(k1.tween, p));
    }
    total = total === undefined ? v : addValue(total, v);
  }
  return total;
}

/** {@link evalAnim} with a default for an empty animation. */
export function evalAnimOr(anim, t, fallback) {
  const v = evalAnim(anim, t);
  return v === undefined ? fallback : v;
}

/**
 * Where judge line `index` is at chart time `t`: centre `x`, `y` in screen units (x from -1 left to 1 right, y from
 * -1/aspect to 1/aspect, y up), `rotation` in degrees (counter-clockwise), `alpha` (may be negative: hidden),
 * `height` (scroll position of its notes), `scale_x`/`scale_y`. A child line's position is turned by its parent's
 * rotation and added to the parent's (prpr's rule); cycles are cut.
 */
export function lineStateAt(chart, info, index, t) {
  const aspect = info && info.aspect_ratio ? info.aspect_ratio : 16 / 9;
  const line = chart.lines[index];
  const o = line.object;
  // prpr: pos(i) = pos(parent) + R(parent rotation) · own(i); only the direct parent's rotation turns a translation.
  let x = 0, y = 0;
  const seen = new Set();
  for (let cur = index; cur !== null && cur !== undefined && chart.lines[cur] && !seen.has(cur);) {
    seen.add(cur);
    const c = chart.lines[cur];
    const ox = evalAnimOr(c.object.translation.x, t, 0);
    const oy = evalAnimOr(c.object.translation.y, t, 0) / aspect;
    const p = c.parent;
    if (p === null || p === undefined || !chart.lines[p]) {
      x += ox;
      y += oy;
      break;
    }
    const r = (evalAnimOr(chart.lines[p].object.rotation, t, 0) * PI) / 180;
    x += ox * Math.cos(r) - oy * Math.sin(r);
    y += ox * Math.sin(r) + oy * Math.cos(r);
    cur = p;
  }
  return {
    x,
    y,
    rotation: evalAnimOr(o.rotation, t, 0),
    alpha: evalAnimOr(o.alpha, t, 1),
    height: evalAnimOr(line.height, t, 0),
    scale_x: evalAnimOr(o.scale.x, t, 1),
    scale_y: evalAnimOr(o.scale.y, t, 1),
  };
}

/**
 * Where a note is relative to its line at a line height (`lineStateAt(...).height`): `x` along the line and `y`
 * away from it (positive = the note's side: above notes are drawn on the line's upper side, below ones mirrored),
 * in the same screen units as the line position. prpr: y = (note.height − line height) × speed / aspect.
 */
export function noteOffsetAt(note, lineHeight, info, t) {
  const aspect = info && info.aspect_ratio ? info.aspect_ratio : 16 / 9;
  const x = evalAnimOr(note.object.translation.x, t, 0);
  const y = (note.height - lineHeight) * note.speed / aspect + evalAnimOr(note.object.translation.y, t, 0) / aspect;
  let endY = null;
  if (typeof note.kind === "object" && note.kind.Hold) {
    endY = (note.kind.Hold.end_height - lineHeight) * note.speed / aspect;
  }
  return { x, y, end_y: endY, alpha: evalAnimOr(note.object.alpha, t, 1) };
}
