/**
 * The chart served for id `test` (extended.md §5.5: a generated one-line
 * chart, no upstream call): one judge line at the centre whose notes approach
 * at one height unit per second -- from 2 s a pattern of tap, tap, drag, flick
 * and a one-second hold every five seconds, across the line, for 30 seconds.
 *
 * @module
 */

import { finishChart } from "../parse/finish.ts";
import {
  anim,
  defaultBpmList,
  defaultChartInfo,
  defaultObject,
  fixedAnim,
  judgeLine,
  kf,
  note,
  TWEEN,
} from "./build.ts";
import type { Chart, ChartInfo, Note } from "./types.ts";

/** Length of the test chart in seconds. */
export const TEST_CHART_SECONDS = 30;

/** `(ChartInfo, Chart)` of the test chart. */
export function testChart(): { info: ChartInfo; chart: Chart } {
  const notes: Note[] = [];
  const at = (time: number, x: number, kind: Note["kind"]) => {
    const object = defaultObject();
    object.translation.x = fixedAnim(x);
    notes.push(note(kind, time, { object, height: time }));
  };
  for (let s = 2, i = 0; s + 5 <= TEST_CHART_SECONDS; s += 5, i++) {
    const x = ((i % 5) - 2) * 0.3;
    at(s, x, "Click");
    at(s + 1, -x, "Click");
    at(s + 2, x / 2, "Drag");
    at(s + 2.5, -x / 2, "Drag");
    at(s + 3, 0, "Flick");
    at(s + 4, x, { Hold: { end_time: s + 5, end_height: s + 5 } });
  }
  const line = judgeLine({
    height: anim([kf(0, 0, TWEEN.linear), kf(TEST_CHART_SECONDS + 1, TEST_CHART_SECONDS + 1, TWEEN.hold)]),
    notes,
  });
  const chart: Chart = {
    music: null,
    offset: 0,
    lines: [line],
    bpm_list: defaultBpmList(),
    settings: { pe_alpha_extension: false, hold_partial_cover: false },
    hitsounds: [],
  };
  finishChart(chart);
  const info: ChartInfo = { ...defaultChartInfo(), name: "Chorus test chart", level: "TEST Lv.1", difficulty: 1 };
  return { info, chart };
}
