/**
 * bincode 1.3 varint bytes back to `(ChartInfo, Chart)`: the inverse of
 * `encode.ts`, for tests and for tools that read `/chart/{id}`. Nesting of
 * `Anim::next` is bounded by {@link MAX_ANIM_CHAIN}.
 *
 * @module
 */

import type {
  Anim,
  AnimFloat,
  AudioClip,
  Chart,
  ChartInfo,
  ChartObject,
  Color,
  GifFrames,
  HitSound,
  JudgeLine,
  JudgeLineKind,
  Keyframe,
  Note,
  NoteKind,
  Texture,
  TweenFn,
} from "../model/types.ts";
import { CHART_FORMATS, UI_ELEMENTS } from "../model/types.ts";
import { BincodeReader } from "./reader.ts";

/** Deepest `Anim::next` chain accepted (RPE event layers; charts use a handful). */
export const MAX_ANIM_CHAIN = 64;

type ValueReader<T> = (r: BincodeReader) => T;

const f32: ValueReader<number> = (r) => r.f32();
const str: ValueReader<string> = (r) => r.str();
const color: ValueReader<Color> = (r) => ({ r: r.f32(), g: r.f32(), b: r.f32(), a: r.f32() });

function opt<T>(r: BincodeReader, read: ValueReader<T>): T | null {
  return r.option() ? read(r) : null;
}

function tween(r: BincodeReader): TweenFn {
  switch (r.variant(3, "TweenFn")) {
    case 0:
      return { TweenId: r.u8() };
    case 1: {
      const sample_table: number[] = [];
      for (let i = 0; i < 21; i++) sample_table.push(r.f32());
      return { Bezier: { sample_table, p1: [r.f32(), r.f32()], p2: [r.f32(), r.f32()] } };
    }
    default: {
      const id = r.u8();
      return { Clamped: [id, { start: r.f32(), end: r.f32() }, { start: r.f32(), end: r.f32() }] };
    }
  }
}

function anim<T extends number | string | Color>(r: BincodeReader, value: ValueReader<T>, depth = 0): Anim<T> {
  if (depth >= MAX_ANIM_CHAIN) r.fail(`animation layers nested over ${MAX_ANIM_CHAIN}`);
  const time = r.f32();
  const n = r.len(6); // time + value + tween, at least 6 bytes
  const keyframes: Keyframe<T>[] = [];
  for (let i = 0; i < n; i++) keyframes.push({ time: r.f32(), value: value(r), tween: tween(r) });
  const cursor = r.varint();
  const next = opt(r, (r) => anim(r, value, depth + 1));
  return { time, keyframes, cursor, next };
}

const animF = (r: BincodeReader): AnimFloat => anim(r, f32);

function object(r: BincodeReader): ChartObject {
  const alpha = animF(r);
  const scale = { x: animF(r), y: animF(r) };
  const rotation = animF(r);
  const translation = { x: animF(r), y: animF(r) };
  return { alpha, scale, rotation, translation };
}

function texture(r: BincodeReader): Texture {
  return { data: r.bytes() };
}

function lineKind(r: BincodeReader): JudgeLineKind {
  switch (r.variant(5, "JudgeLineKind")) {
    case 0:
      return "Normal";
    case 1:
      return { Texture: [texture(r), r.str()] };
    case 2: {
      const events = animF(r);
      const n = r.len(2);
      const frames: GifFrames["frames"] = [];
      for (let i = 0; i < n; i++) frames.push([r.varint(), texture(r)]);
      return { TextureGif: [events, { frames, total_time: r.varint() }, r.str()] };
    }
    case 3:
      return { Text: anim(r, str) };
    default:
      return { Paint: animF(r) };
  }
}

function hitSound(r: BincodeReader): HitSound {
  const v = r.variant(4, "HitSound");
  return v === 3 ? { Custom: r.str() } : (["Click", "Drag", "Flick"] as const)[v]!;
}

function noteKind(r: BincodeReader): NoteKind {
  const v = r.variant(4, "NoteKind");
  if (v === 1) return { Hold: { end_time: r.f32(), end_height: r.f32() } };
  return (["Click", "", "Flick", "Drag"] as const)[v] as NoteKind;
}

function note(r: BincodeReader): Note {
  return {
    object: object(r),
    kind: noteKind(r),
    time: r.f32(),
    height: r.f32(),
    speed: r.f32(),
    above: r.bool(),
    multiple_hint: r.bool(),
    fake: r.bool(),
    hitsound: opt(r, hitSound),
  };
}

function judgeLine(r: BincodeReader): JudgeLine {
  const obj = object(r);
  const ctrl_obj = { alpha: animF(r), size: animF(r), pos: animF(r), y: animF(r) };
  const kind = lineKind(r);
  const height = animF(r);
  const incline = animF(r);
  const col = anim(r, color);
  const n = r.len(20);
  const notes: Note[] = [];
  for (let i = 0; i < n; i++) notes.push(note(r));
  return {
    object: obj,
    ctrl_obj,
    kind,
    height,
    incline,
    color: col,
    notes,
    parent: opt(r, (r) => r.varint()),
    z_index: r.zigzag(),
    show_below: r.bool(),
    attach_ui: opt(r, (r) => UI_ELEMENTS[r.variant(UI_ELEMENTS.length, "UIElement")]!),
  };
}

function audioClip(r: BincodeReader): AudioClip {
  return { samples: r.f32s(), sample_rate: r.varint(), channel_count: r.varint() };
}

/** Reads a `ChartInfo`. */
export function readChartInfo(r: BincodeReader): ChartInfo {
  return {
    id: opt(r, (r) => r.zigzag()),
    uploader: opt(r, (r) => r.zigzag()),
    name: r.str(),
    difficulty: r.f32(),
    level: r.str(),
    charter: r.str(),
    composer: r.str(),
    illustrator: r.str(),
    chart: r.str(),
    format: opt(r, (r) => CHART_FORMATS[r.variant(CHART_FORMATS.length, "ChartFormat")]!),
    music: r.str(),
    illustration: r.str(),
    unlock_video: opt(r, str),
    preview_start: r.f32(),
    preview_end: opt(r, f32),
    aspect_ratio: r.f32(),
    background_dim: r.f32(),
    line_length: r.f32(),
    offset: r.f32(),
    tip: opt(r, str),
    tags: Array.from({ length: r.len(1) }, () => r.str()),
    intro: r.str(),
    hold_partial_cover: r.bool(),
    note_uniform_scale: r.bool(),
    created: opt(r, str),
    updated: opt(r, str),
    chart_updated: opt(r, str),
  };
}

/** Reads a `Chart`. */
export function readChart(r: BincodeReader): Chart {
  const music = opt(r, audioClip);
  const offset = r.f32();
  const lines = Array.from({ length: r.len(90) }, () => judgeLine(r));
  const elements = Array.from({ length: r.len(12) }, () => [r.f32(), r.f32(), r.f32()] as [number, number, number]);
  const bpm_list = { elements, cursor: r.varint() };
  const settings = { pe_alpha_extension: r.bool(), hold_partial_cover: r.bool() };
  const hitsounds = Array.from({ length: r.len(4) }, () => [hitSound(r), audioClip(r)] as [HitSound, AudioClip]);
  return { music, offset, lines, bpm_list, settings, hitsounds };
}

/** Decodes the tuple `(ChartInfo, Chart)`; the whole input must be consumed. */
export function decodeChart(bytes: Uint8Array): { info: ChartInfo; chart: Chart } {
  const r = new BincodeReader(bytes);
  const info = readChartInfo(r);
  const chart = readChart(r);
  r.end();
  return { info, chart };
}
