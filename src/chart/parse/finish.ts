/**
 * The last steps every parser shares (prpr's `process_lines`): round every
 * float to f32 (the model's type, so equality, sorting and encoding agree),
 * mark notes that share their time with another note (`multiple_hint`), and
 * sort each line's notes the way the game client orders them -- the live
 * `Judges` stream names notes by index in this order (protocol.md §3).
 *
 * @module
 */

import type { Anim, Chart, ChartObject, Color, JudgeLine, Note, TweenFn } from "../model/types.ts";

const f = Math.fround;

function roundTween(t: TweenFn): void {
  if ("Bezier" in t) {
    const b = t.Bezier;
    b.sample_table = b.sample_table.map(f);
    b.p1 = [f(b.p1[0]), f(b.p1[1])];
    b.p2 = [f(b.p2[0]), f(b.p2[1])];
  } else if ("Clamped" in t) {
    const [, x, y] = t.Clamped;
    x.start = f(x.start);
    x.end = f(x.end);
    y.start = f(y.start);
    y.end = f(y.end);
  }
}

/** Rounds an animation (and its chained layers) to f32. */
export function roundAnim<T extends number | string | Color>(a: Anim<T>): void {
  for (let x: Anim<T> | null = a; x; x = x.next) {
    x.time = f(x.time);
    for (const k of x.keyframes) {
      k.time = f(k.time);
      const v = k.value as number | string | Color;
      if (typeof v === "number") (k as { value: number }).value = f(v);
      else if (typeof v === "object") k.value = { r: f(v.r), g: f(v.g), b: f(v.b), a: f(v.a) } as T;
      roundTween(k.tween);
    }
  }
}

function roundObject(o: ChartObject): void {
  for (const a of [o.alpha, o.scale.x, o.scale.y, o.rotation, o.translation.x, o.translation.y]) roundAnim(a);
}

function roundNote(n: Note): void {
  roundObject(n.object);
  n.time = f(n.time);
  n.height = f(n.height);
  n.speed = f(n.speed);
  if (typeof n.kind === "object") {
    n.kind.Hold.end_time = f(n.kind.Hold.end_time);
    n.kind.Hold.end_height = f(n.kind.Hold.end_height);
  }
}

function roundLine(l: JudgeLine): void {
  roundObject(l.object);
  for (const a of [l.ctrl_obj.alpha, l.ctrl_obj.size, l.ctrl_obj.pos, l.ctrl_obj.y, l.height, l.incline]) {
    roundAnim(a);
  }
  roundAnim(l.color);
  const k = l.kind;
  if (typeof k === "object") {
    if ("TextureGif" in k) roundAnim(k.TextureGif[0]);
    else if ("Text" in k) roundAnim(k.Text);
    else if ("Paint" in k) roundAnim(k.Paint);
  }
  for (const n of l.notes) roundNote(n);
}

/** Rounds every float of a chart to f32 (PCM samples already are). */
export function roundChart(c: Chart): void {
  c.offset = f(c.offset);
  for (const l of c.lines) roundLine(l);
  c.bpm_list.elements = c.bpm_list.elements.map(([a, b, d]) => [f(a), f(b), f(d)]);
}

/** prpr's `Note::plain`: drawn the simple way (not fake, not a hold, at most one y keyframe). */
function plain(n: Note): boolean {
  return !n.fake && typeof n.kind === "string" && n.object.translation.y.keyframes.length <= 1;
}

function cmp(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0; // NaN compares equal, like partial_cmp(..).unwrap_or(Equal)
}

/** prpr's `JudgeLine::sort_notes` (a stable sort). */
export function sortNotes(notes: Note[]): void {
  const key = (n: Note) => f((n.height + (n.object.translation.y.keyframes[0]?.value ?? 0)) * n.speed);
  notes.sort((a, b) =>
    Number(plain(a)) - Number(plain(b)) ||
    Number(!a.above) - Number(!b.above) ||
    cmp(a.speed, b.speed) ||
    cmp(key(a), key(b))
  );
}

/** Rounds to f32, sets `multiple_hint` on notes whose time another note shares, sorts each line's notes. */
export function finishChart(c: Chart): void {
  roundChart(c);
  const count = new Map<number, number>();
  for (const l of c.lines) for (const n of l.notes) count.set(n.time, (count.get(n.time) ?? 0) + 1);
  for (const l of c.lines) {
    for (const n of l.notes) n.multiple_hint = (count.get(n.time) ?? 0) > 1;
    sortNotes(l.notes);
  }
}
