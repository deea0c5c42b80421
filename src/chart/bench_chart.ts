/**
 * A realistic 3-minute RPE chart for benchmarks (issue 19): 150 BPM, 16 judge
 * lines, ~1500 notes (taps, drags, flicks, holds), every line moving, turning
 * and fading on every other beat with varied easings (some bezier, some
 * clamped), speed changes every four beats -- about 30 000 keyframes, a
 * ~2.5 MB JSON file like the dense charts players upload.
 *
 * @module
 */

import { SeededRandom } from "../util/random.ts";

const BPM = 150;
const SECONDS = 180;
const LINES = 16;

/** RPE JSON text of the benchmark chart. */
export function benchChartRpe(): string {
  const r = new SeededRandom(19);
  const beats = (SECONDS * BPM) / 60;
  const t = (b: number): [number, number, number] => [Math.floor(b), Math.round((b % 1) * 4), 4];
  const ev = (from: number, to: number, a: number, b: number) => {
    const e: Record<string, unknown> = {
      startTime: t(from),
      endTime: t(to),
      start: a,
      end: b,
      easingType: 1 + Math.floor(r.next() * 28),
      linkgroup: 0,
    };
    const pick = r.next();
    if (pick < 0.1) Object.assign(e, { bezier: 1, bezierPoints: [0.2, 0.1 + r.next() * 0.3, 0.6, 0.9] });
    else if (pick < 0.2) Object.assign(e, { easingLeft: 0.1, easingRight: 0.8 });
    return e;
  };
  const lines = [];
  let notes = 0;
  for (let l = 0; l < LINES; l++) {
    const move: unknown[] = [],
      moveY: unknown[] = [],
      rot: unknown[] = [],
      alpha: unknown[] = [],
      speed: unknown[] = [];
    for (let b = 0; b < beats; b += 2) {
      move.push(ev(b, b + 2, (r.next() - 0.5) * 1200, (r.next() - 0.5) * 1200));
      moveY.push(ev(b, b + 2, (r.next() - 0.5) * 800, (r.next() - 0.5) * 800));
      rot.push(ev(b, b + 2, r.next() * 360, r.next() * 360));
      alpha.push(ev(b, b + 2, 255, r.next() < 0.2 ? 0 : 255));
    }
    for (let b = 0; b < beats; b += 4) {
      speed.push({ startTime: t(b), endTime: t(b + 4), start: 5 + r.next() * 10, end: 5 + r.next() * 10 });
    }
    const lineNotes = [];
    // ~1500 notes over 16 lines: one every ~4.8 beats per line, quarter-beat grid.
    for (let b = 4 + l * 0.25; b < beats - 4; b += 4 + Math.floor(r.next() * 4) * 0.25) {
      const type = 1 + Math.floor(r.next() * 4);
      lineNotes.push({
        type,
        startTime: t(b),
        endTime: t(type === 2 ? b + 1 : b),
        positionX: (r.next() - 0.5) * 1000,
        above: r.next() < 0.9 ? 1 : 0,
        alpha: 255,
        isFake: 0,
        size: 1,
        speed: 1,
        yOffset: 0,
        visibleTime: 999999,
      });
      notes++;
    }
    lines.push({
      Name: `line ${l}`,
      Texture: "line.png",
      father: l > 0 && l % 4 === 0 ? 0 : -1,
      isCover: 1,
      zOrder: l,
      eventLayers: [{
        moveXEvents: move,
        moveYEvents: moveY,
        rotateEvents: rot,
        alphaEvents: alpha,
        speedEvents: speed,
      }],
      notes: lineNotes,
    });
  }
  void notes;
  return JSON.stringify({
    META: { RPEVersion: 150, offset: 0 },
    BPMList: [{ bpm: BPM, startTime: [0, 0, 1] }],
    judgeLineList: lines,
  });
}

/** `info.yml` of the benchmark chart. */
export const BENCH_INFO_YML = "name: Bench\nchart: chart.json\nmusic: music.mp3\nchartUpdated: 2026-01-01T00:00:00Z\n";
