/**
 * The Phira chart model served by `/chart/{id}` (extended.md §5.5: the
 * `monitor-common::core` types, a serde port of prpr's model), field for field
 * and in declaration order, which is also the bincode order. Each TS value has
 * the shape serde's JSON gives it: snake_case fields, enums externally tagged
 * (`"Click"`, `{"Hold": {...}}`), tuples as arrays, `Option` as `null`. Times
 * are seconds; every float is an f32 (see `normalize.ts`).
 *
 * @module
 */

import type {
  AnimVector,
  BezierTween,
  ClampedTween,
  Color,
  Keyframe,
  Range,
  TweenFn,
} from "../../../static/chart/chart_model.js";
import type { Anim } from "../../../static/chart/chart_model.js";

export type { Anim, AnimVector, BezierTween, ClampedTween, Color, Keyframe, Range, TweenFn };

/** `AnimFloat = Anim<f32>`. */
export type AnimFloat = Anim<number>;

/** `ChartFormat` (variant order Rpe=0, Pec, Pgr, Pbc; serde JSON lowercase). */
export type ChartFormat = "rpe" | "pec" | "pgr" | "pbc";
/** All chart formats in variant order. */
export const CHART_FORMATS: readonly ChartFormat[] = ["rpe", "pec", "pgr", "pbc"];

/** `ChartInfo` (info.yml). Date-times are RFC 3339 strings in UTC as chrono writes them. */
export interface ChartInfo {
  id: number | null;
  uploader: number | null;
  name: string;
  difficulty: number;
  level: string;
  charter: string;
  composer: string;
  illustrator: string;
  chart: string;
  format: ChartFormat | null;
  music: string;
  illustration: string;
  unlock_video: string | null;
  preview_start: number;
  preview_end: number | null;
  aspect_ratio: number;
  background_dim: number;
  line_length: number;
  offset: number;
  tip: string | null;
  tags: string[];
  intro: string;
  hold_partial_cover: boolean;
  note_uniform_scale: boolean;
  created: string | null;
  updated: string | null;
  chart_updated: string | null;
}

/** `Object` of prpr (named so here to keep the global `Object`). */
export interface ChartObject {
  alpha: AnimFloat;
  scale: AnimVector;
  rotation: AnimFloat;
  translation: AnimVector;
}

/** `CtrlObject`: RPE control curves, keyed by height. */
export interface CtrlObject {
  alpha: AnimFloat;
  size: AnimFloat;
  pos: AnimFloat;
  y: AnimFloat;
}

/** `NoteKind`. */
export type NoteKind = "Click" | { Hold: { end_time: number; end_height: number } } | "Flick" | "Drag";
/** `HitSound`. */
export type HitSound = "Click" | "Drag" | "Flick" | { Custom: string };

/** `Note` (`judge` is serde-skipped). */
export interface Note {
  object: ChartObject;
  kind: NoteKind;
  time: number;
  height: number;
  speed: number;
  above: boolean;
  multiple_hint: boolean;
  fake: boolean;
  hitsound: HitSound | null;
}

/** `Texture`: PNG bytes (RGBA 8-bit, as prpr's port re-encodes every image). */
export interface Texture {
  data: Uint8Array;
}

/** `GifFrames`: frame delays in milliseconds (u128) with their textures. */
export interface GifFrames {
  frames: [number, Texture][];
  total_time: number;
}

/** `UIElement` (serde JSON lowercase; bincode variant index 0..6, not the Rust discriminants 1..7). */
export type UIElement = "pause" | "combonumber" | "combo" | "score" | "bar" | "name" | "level";
/** All UI elements in variant order. */
export const UI_ELEMENTS: readonly UIElement[] = ["pause", "combonumber", "combo", "score", "bar", "name", "level"];

/** `JudgeLineKind`. */
export type JudgeLineKind =
  | "Normal"
  | { Texture: [Texture, string] }
  | { TextureGif: [AnimFloat, GifFrames, string] }
  | { Text: Anim<string> }
  | { Paint: AnimFloat };

/** `JudgeLine`. */
export interface JudgeLine {
  object: ChartObject;
  ctrl_obj: CtrlObject;
  kind: JudgeLineKind;
  height: AnimFloat;
  incline: AnimFloat;
  color: Anim<Color>;
  notes: Note[];
  parent: number | null;
  z_index: number;
  show_below: boolean;
  attach_ui: UIElement | null;
}

/** `BpmList`: (beats, seconds, bpm) per BPM change. */
export interface BpmList {
  elements: [number, number, number][];
  cursor: number;
}

/** `ChartSettings`. */
export interface ChartSettings {
  pe_alpha_extension: boolean;
  hold_partial_cover: boolean;
}

/** `AudioClip`: interleaved PCM. */
export interface AudioClip {
  samples: Float32Array;
  sample_rate: number;
  channel_count: number;
}

/** `Chart` (`order` is serde-skipped). `hitsounds` is a `HashMap`, kept here as pairs in a fixed order. */
export interface Chart {
  music: AudioClip | null;
  offset: number;
  lines: JudgeLine[];
  bpm_list: BpmList;
  settings: ChartSettings;
  hitsounds: [HitSound, AudioClip][];
}
