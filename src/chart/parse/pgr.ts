/**
 * Official Phigros chart JSON (`formatVersion` 1 or 3) to the model, with
 * prpr's conversions: times in units of 1/32 beat at the line's BPM
 * (t × 1.875 / bpm seconds); move events 0..1 -> -1..1 (version 1 packs
 * x × 1000 + y on an 880 × 520 grid); speed events integrated into the line's
 * height (÷ `HEIGHT_RATIO`); note x = positionX × 0.1125; note types
 * 1 tap, 2 drag, 3 hold, 4 flick.
 *
 * @module
 */

import { evalAnimOr } from "../../../static/chart/chart_model.js";
import {
  anim,
  defaultBpmList,
  defaultObject,
  emptyAnim,
  fixedAnim,
  HEIGHT_RATIO,
  judgeLine,
  kf,
  note,
  TWEEN,
} from "../model/build.ts";
import type { AnimFloat, AnimVector, Chart, JudgeLine, Keyframe, Note, NoteKind } from "../model/types.ts";
import { invalid } from "./errors.ts";
import { finishChart } from "./finish.ts";
import { JsonObj, parseJson } from "./json_read.ts";
import { Budget } from "./limits.ts";
import { tooLarge } from "./errors.ts";

interface Event {
  start: number;
  end: number;
  startV: number;
  endV: number;
  start2: number;
  end2: number;
}

function events(line: JsonObj, key: string, budget: Budget): Event[] {
  const list = line.objs(key, true);
  budget.keyframes(list.length * 2);
  return list.map((e) => ({
    start: e.num("startTime"),
    end: e.num("endTime"),
    startV: e.num("start", 0),
    endV: e.num("end", 0),
    start2: e.num("start2", 0),
    end2: e.num("end2", 0),
  })).filter((e) => e.start <= e.end); // prpr drops events ending before they start
}

/** Speed events -> the line's height (distance travelled) as a piecewise linear animation. */
function heightAnim(r: number, line: JsonObj, budget: Budget, maxTime: number): AnimFloat {
  const list = line.objs("speedEvents", true).map((e) => ({
    start: e.num("startTime"),
    end: e.num("endTime"),
    value: e.num("value"),
  })).filter((e) => e.start <= e.end);
  budget.keyframes(list.length + 1);
  if (list.length === 0) return emptyAnim();
  list[0]!.start = 0;
  const kfs: Keyframe<number>[] = [];
  let pos = 0;
  for (const e of list.slice(0, -1)) {
    kfs.push(kf(e.start * r, pos, TWEEN.linear));
    pos += (e.end - e.start) * r * e.value;
  }
  const last = list[list.length - 1]!;
  kfs.push(kf(last.start * r, pos, TWEEN.linear));
  kfs.push(kf(maxTime, pos + (maxTime - last.start * r) * last.value, TWEEN.hold));
  for (const k of kfs) k.value /= HEIGHT_RATIO;
  return anim(kfs);
}

/** Float events (alpha, rotation) -> keyframes at each start (when the value jumps) and end, the last end dropped. */
function floatAnim(r: number, list: Event[]): AnimFloat {
  const kfs: Keyframe<number>[] = [];
  for (const e of list) {
    if (kfs[kfs.length - 1]?.value !== e.startV) kfs.push(kf(Math.max(e.start * r, 0), e.startV, TWEEN.linear));
    kfs.push(kf(e.end * r, e.endV, TWEEN.linear));
  }
  kfs.pop();
  return anim(kfs);
}

function moveAnim(r: number, list: Event[], version: number): AnimVector {
  const xs: Keyframe<number>[] = [];
  const ys: Keyframe<number>[] = [];
  // Version 1 packs x × 1000 + y (an 880 × 520 grid) into one value.
  const split = (v: number, v2: number): [number, number] =>
    version === 1 ? [(v - (v % 1000)) / 1000, v % 1000] : [v, v2];
  for (const e of list) {
    const st = Math.max(e.start * r, 0);
    const en = e.end * r;
    const [sx, sy] = split(e.startV, e.start2);
    const [ex, ey] = split(e.endV, e.end2);
    if (xs[xs.length - 1]?.value !== sx) xs.push(kf(st, sx, TWEEN.linear));
    if (ys[ys.length - 1]?.value !== sy) ys.push(kf(st, sy, TWEEN.linear));
    xs.push(kf(en, ex, TWEEN.linear));
    ys.push(kf(en, ey, TWEEN.linear));
  }
  xs.pop();
  ys.pop();
  const [fx, fy] = version === 1
    ? [(v: number) => (-880 + v * 2) / 880, (v: number) => (-520 + v * 2) / 520]
    : [(v: number) => -1 + v * 2, (v: number) => -1 + v * 2];
  for (const k of xs) k.value = fx(k.value);
  for (const k of ys) k.value = fy(k.value);
  return { x: anim(xs), y: anim(ys) };
}

function notes(r: number, line: JsonObj, key: string, above: boolean, height: AnimFloat, budget: Budget): Note[] {
  const list = line.objs(key, true);
  budget.notes(list.length);
  const raw = list.map((n) => ({
    type: n.int("type"),
    time: n.num("time"),
    x: n.num("positionX", 0),
    hold: n.num("holdTime", 0),
    speed: n.num("speed", 1),
    path: n.path,
  }));
  raw.sort((a, b) => a.time - b.time);
  return raw.map((n) => {
    const time = n.time * r;
    let kind: NoteKind;
    switch (n.type) {
      case 1:
        kind = "Click";
        break;
      case 2:
        kind = "Drag";
        break;
      case 3: {
        const end_time = (n.time + n.hold) * r;
        kind = { Hold: { end_time, end_height: evalAnimOr(height, end_time, 0) } };
        break;
      }
      case 4:
        kind = "Flick";
        break;
      default:
        invalid(`Cannot parse the chart: ${n.path}.type: unknown note type ${n.type} (1 tap, 2 drag, 3 hold, 4 flick)`);
    }
    const object = defaultObject();
    object.translation.x = fixedAnim(n.x * (2 * 9 / 160));
    // prpr: a hold's `speed` scales its length, not its approach; the note itself moves at speed 1.
    return note(kind, time, { object, height: evalAnimOr(height, time, 0), speed: n.type === 3 ? 1 : n.speed, above });
  });
}

/** Parses official chart JSON text. */
export function parsePgr(text: string, budget = new Budget()): Chart {
  const root = new JsonObj(parseJson(text, "the chart"), "");
  const version = root.int("formatVersion", 3);
  if (version !== 1 && version !== 3) {
    invalid(`Cannot parse the chart: formatVersion ${version} is unknown (1 and 3 are)`);
  }
  const lines = root.objs("judgeLineList");
  if (lines.length > budget.limits.maxLines) {
    tooLarge(`Cannot parse the chart: ${lines.length} judge lines, over ${budget.limits.maxLines}`);
  }
  const bpms = lines.map((l) => {
    const bpm = l.num("bpm");
    if (!(bpm > 0)) invalid(`Cannot parse the chart: ${l.pathOf("bpm")}: BPM ${bpm} is not positive`);
    return bpm;
  });
  // The end of the chart: the last note plus one second (prpr).
  let maxTime = 0;
  lines.forEach((l, i) => {
    for (const key of ["notesAbove", "notesBelow"]) {
      for (const n of l.objs(key, true)) maxTime = Math.max(maxTime, n.num("time") * (60 / bpms[i]! / 32));
    }
  });
  maxTime += 1;
  const out: JudgeLine[] = lines.map((l, i) => {
    const r = 60 / 32 / bpms[i]!;
    const height = heightAnim(r, l, budget, maxTime);
    const object = defaultObject();
    object.alpha = floatAnim(r, events(l, "judgeLineDisappearEvents", budget));
    object.rotation = floatAnim(r, events(l, "judgeLineRotateEvents", budget));
    object.translation = moveAnim(r, events(l, "judgeLineMoveEvents", budget), version);
    const ns = [
      ...notes(r, l, "notesAbove", true, height, budget),
      ...notes(r, l, "notesBelow", false, height, budget),
    ];
    return judgeLine({ object, height, notes: ns });
  });
  const chart: Chart = {
    music: null,
    offset: root.num("offset", 0),
    lines: out,
    bpm_list: defaultBpmList(),
    settings: { pe_alpha_extension: false, hold_partial_cover: false },
    hitsounds: [],
  };
  finishChart(chart);
  return chart;
}
