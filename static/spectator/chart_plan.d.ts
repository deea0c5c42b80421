// Types of chart_plan.js (the spectator's chart layer, as data).
import type * as ChartModel from "../chart/chart_model.d.ts";

/** The chart model functions the plan uses (`chart_model.js`). */
export type ChartModelFns = Pick<typeof ChartModel, "lineStateAt" | "noteOffsetAt" | "evalAnimOr">;

/** Judgement colour classes. */
export type JudgementClass = "perfect" | "good" | "bad" | "miss";
/** A wire judge event. */
export interface WireJudge {
  time: number;
  line_id: number;
  note_id: number;
  judgement: string;
}
/** A judge event as the book keeps it. */
export interface BookEvent {
  time: number;
  line: number;
  note: number;
  cls: JudgementClass;
  head: boolean;
  pos: { x: number; y: number; rotation: number } | null;
}
/** Counts by class. */
export type ClassCounts = Record<JudgementClass, number>;

export const JUDGEMENT_COLORS: Readonly<Record<JudgementClass, string>>;
export function judgementClass(judgement: string): JudgementClass | null;
export const RUN_AHEAD_S: number;
export function chartTime(viewTime: number, newest: number | null | undefined): number;
export const NOTE_KINDS: readonly ["click", "drag", "flick", "hold"];
export const LATE_S: number;
export const EFFECT_S: number;
export const MISS_FADE_S: number;
export const MAX_JUDGE_EVENTS: number;
export function lowerBound(values: ArrayLike<number>, x: number): number;

/** A prepared note. */
export interface PreparedNote {
  id: number;
  // deno-lint-ignore no-explicit-any
  note: any;
  kind: number;
  time: number;
  endTime: number;
  lo: number;
  hi: number;
  speed: number;
  above: boolean;
  fake: boolean;
  multi: boolean;
}
/** A prepared line. */
export interface PreparedLine {
  index: number;
  notes: PreparedNote[];
  byHeight: PreparedNote[];
  heights: Float64Array;
  still: PreparedNote[];
  maxSpan: number;
  minSpeed: number;
  kind: "normal" | "text" | "paint" | "texture";
  showBelow: boolean;
}
/** A prepared chart. */
export interface PreparedChart {
  // deno-lint-ignore no-explicit-any
  info: any;
  // deno-lint-ignore no-explicit-any
  chart: any;
  aspect: number;
  lineLength: number;
  lines: PreparedLine[];
  order: number[];
  notes: number;
  end: number;
}
// deno-lint-ignore no-explicit-any
export function prepareChart(data: { info: any; chart: any }): PreparedChart;

/** One player's judgements. */
export class JudgeBook {
  constructor(limit?: number);
  events: BookEvent[];
  shown: ClassCounts;
  dropped: number;
  clear(): void;
  add(judges: Iterable<WireJudge>): void;
  record(line: number, note: number): { head: BookEvent | null; final: BookEvent | null } | undefined;
  advance(t: number): ClassCounts;
  after(t: number): number;
}

export function lineColorFor(shown: ClassCounts): string;
export function canvasMapping(width: number, height: number, aspect: number): {
  fromChart(x: number, y: number): [number, number];
  fromTouch(x: number, y: number): [number, number];
};

/** A note as drawn. */
export interface PlannedNote {
  id: number;
  kind: "click" | "drag" | "flick" | "hold";
  x: number;
  y: number;
  endY: number | null;
  alpha: number;
  state: "pending" | "held" | "miss";
  cls: JudgementClass | null;
  multi: boolean;
}
/** A line as drawn. */
export interface PlannedLine {
  index: number;
  x: number;
  y: number;
  rotation: number;
  alpha: number;
  scaleX: number;
  color: string;
  kind: "normal" | "text" | "paint" | "texture";
  text: string | null;
  notes: PlannedNote[];
}
/** A judgement flash. */
export interface PlannedEffect {
  x: number;
  y: number;
  rotation: number;
  age: number;
  cls: JudgementClass;
  kind: "hit" | "hold";
}
/** One frame. */
export interface PlannedFrame {
  time: number;
  lines: PlannedLine[];
  effects: PlannedEffect[];
  counts: {
    lines: number;
    notes: number;
    effects: number;
    effectsByClass: ClassCounts;
    shown: ClassCounts;
  };
}
export function planFrame(prep: PreparedChart, t: number, book: JudgeBook, model: ChartModelFns): PlannedFrame;
