/**
 * `(ChartInfo, Chart)` to bincode 1.3 varint (extended.md §5.5): every struct
 * field in declaration order (see `../model/types.ts`), enums as variant index
 * then fields. `HashMap<HitSound, AudioClip>` is written in the model's pair
 * order (a map has no order of its own; decoders accept any).
 *
 * @module
 */

import type {
  Anim,
  AudioClip,
  Chart,
  ChartInfo,
  ChartObject,
  Color,
  HitSound,
  JudgeLine,
  JudgeLineKind,
  Note,
  Texture,
  TweenFn,
} from "../model/types.ts";
import { CHART_FORMATS, UI_ELEMENTS } from "../model/types.ts";
import { BincodeWriter, type ByteSink, encodeToBytes } from "./writer.ts";

type ValueWriter<T> = (w: BincodeWriter, v: T) => void;

const f32: ValueWriter<number> = (w, v) => w.f32(v);
const str: ValueWriter<string> = (w, v) => w.str(v);
const color: ValueWriter<Color> = (w, c) => {
  w.f32(c.r);
  w.f32(c.g);
  w.f32(c.b);
  w.f32(c.a);
};

function opt<T>(w: BincodeWriter, v: T | null, write: ValueWriter<T>): void {
  w.option(v !== null);
  if (v !== null) write(w, v);
}

function tween(w: BincodeWriter, t: TweenFn): void {
  if ("TweenId" in t) {
    w.variant(0);
    w.u8(t.TweenId);
  } else if ("Bezier" in t) {
    w.variant(1);
    const b = t.Bezier;
    if (b.sample_table.length !== 21) throw new RangeError("Cannot encode a bezier tween without 21 samples");
    for (const s of b.sample_table) w.f32(s); // [f32; 21]: a fixed array has no length
    w.f32(b.p1[0]);
    w.f32(b.p1[1]);
    w.f32(b.p2[0]);
    w.f32(b.p2[1]);
  } else {
    w.variant(2);
    const [id, x, y] = t.Clamped;
    w.u8(id);
    w.f32(x.start);
    w.f32(x.end);
    w.f32(y.start);
    w.f32(y.end);
  }
}

function anim<T extends number | string | Color>(w: BincodeWriter, a: Anim<T>, value: ValueWriter<T>): void {
  w.f32(a.time);
  w.varint(a.keyframes.length);
  for (const k of a.keyframes) {
    w.f32(k.time);
    value(w, k.value);
    tween(w, k.tween);
  }
  w.varint(a.cursor);
  opt(w, a.next, (w, n) => anim(w, n, value));
}

function object(w: BincodeWriter, o: ChartObject): void {
  anim(w, o.alpha, f32);
  anim(w, o.scale.x, f32);
  anim(w, o.scale.y, f32);
  anim(w, o.rotation, f32);
  anim(w, o.translation.x, f32);
  anim(w, o.translation.y, f32);
}

function texture(w: BincodeWriter, t: Texture): void {
  w.bytes(t.data);
}

function lineKind(w: BincodeWriter, k: JudgeLineKind): void {
  if (k === "Normal") return w.variant(0);
  if ("Texture" in k) {
    w.variant(1);
    texture(w, k.Texture[0]);
    w.str(k.Texture[1]);
  } else if ("TextureGif" in k) {
    w.variant(2);
    const [events, gif, name] = k.TextureGif;
    anim(w, events, f32);
    w.varint(gif.frames.length);
    for (const [delay, t] of gif.frames) {
      w.varint(delay); // u128
      texture(w, t);
    }
    w.varint(gif.total_time);
    w.str(name);
  } else if ("Text" in k) {
    w.variant(3);
    anim(w, k.Text, str);
  } else {
    w.variant(4);
    anim(w, k.Paint, f32);
  }
}

function hitSound(w: BincodeWriter, h: HitSound): void {
  if (typeof h === "string") return w.variant(["Click", "Drag", "Flick"].indexOf(h));
  w.variant(3);
  w.str(h.Custom);
}

function note(w: BincodeWriter, n: Note): void {
  object(w, n.object);
  if (typeof n.kind === "string") w.variant(n.kind === "Click" ? 0 : n.kind === "Flick" ? 2 : 3);
  else {
    w.variant(1);
    w.f32(n.kind.Hold.end_time);
    w.f32(n.kind.Hold.end_height);
  }
  w.f32(n.time);
  w.f32(n.height);
  w.f32(n.speed);
  w.bool(n.above);
  w.bool(n.multiple_hint);
  w.bool(n.fake);
  opt(w, n.hitsound, hitSound);
}

function judgeLine(w: BincodeWriter, l: JudgeLine): void {
  object(w, l.object);
  anim(w, l.ctrl_obj.alpha, f32);
  anim(w, l.ctrl_obj.size, f32);
  anim(w, l.ctrl_obj.pos, f32);
  anim(w, l.ctrl_obj.y, f32);
  lineKind(w, l.kind);
  anim(w, l.height, f32);
  anim(w, l.incline, f32);
  anim(w, l.color, color);
  w.varint(l.notes.length);
  for (const n of l.notes) note(w, n);
  opt(w, l.parent, (w, p) => w.varint(p)); // Option<usize>
  w.zigzag(l.z_index);
  w.bool(l.show_below);
  opt(w, l.attach_ui, (w, u) => w.variant(UI_ELEMENTS.indexOf(u)));
}

function audioClip(w: BincodeWriter, c: AudioClip): void {
  w.f32s(c.samples);
  w.varint(c.sample_rate);
  w.varint(c.channel_count);
}

/** Writes a `ChartInfo`. */
export function writeChartInfo(w: BincodeWriter, i: ChartInfo): void {
  opt(w, i.id, (w, v) => w.zigzag(v));
  opt(w, i.uploader, (w, v) => w.zigzag(v));
  w.str(i.name);
  w.f32(i.difficulty);
  w.str(i.level);
  w.str(i.charter);
  w.str(i.composer);
  w.str(i.illustrator);
  w.str(i.chart);
  opt(w, i.format, (w, f) => w.variant(CHART_FORMATS.indexOf(f)));
  w.str(i.music);
  w.str(i.illustration);
  opt(w, i.unlock_video, str);
  w.f32(i.preview_start);
  opt(w, i.preview_end, f32);
  w.f32(i.aspect_ratio);
  w.f32(i.background_dim);
  w.f32(i.line_length);
  w.f32(i.offset);
  opt(w, i.tip, str);
  w.varint(i.tags.length);
  for (const t of i.tags) w.str(t);
  w.str(i.intro);
  w.bool(i.hold_partial_cover);
  w.bool(i.note_uniform_scale);
  opt(w, i.created, str);
  opt(w, i.updated, str);
  opt(w, i.chart_updated, str);
}

/** Writes a `Chart`. */
export function writeChart(w: BincodeWriter, c: Chart): void {
  opt(w, c.music, audioClip);
  w.f32(c.offset);
  w.varint(c.lines.length);
  for (const l of c.lines) judgeLine(w, l);
  w.varint(c.bpm_list.elements.length);
  for (const [a, b, d] of c.bpm_list.elements) {
    w.f32(a);
    w.f32(b);
    w.f32(d);
  }
  w.varint(c.bpm_list.cursor); // usize
  w.bool(c.settings.pe_alpha_extension);
  w.bool(c.settings.hold_partial_cover);
  w.varint(c.hitsounds.length);
  for (const [h, clip] of c.hitsounds) {
    hitSound(w, h);
    audioClip(w, clip);
  }
}

/** Encodes the tuple `(ChartInfo, Chart)` into `sink` (chunks of at most 64 KiB, PCM passed without copying). */
export function encodeChartTo(info: ChartInfo, chart: Chart, sink: ByteSink): number {
  const w = new BincodeWriter(sink);
  writeChartInfo(w, info);
  writeChart(w, chart);
  w.finish();
  return w.length;
}

/** Encodes the tuple `(ChartInfo, Chart)` into one byte array. */
export function encodeChart(info: ChartInfo, chart: Chart): Uint8Array {
  return encodeToBytes((w) => {
    writeChartInfo(w, info);
    writeChart(w, chart);
  });
}
