/**
 * Chart files of development charts: the same small two-line chart written as
 * official JSON (PGR, formatVersion 3), RPE JSON or PEC text, so that each
 * format's parser sees a real file (issue 19). 120 BPM; line 0 stays at the
 * centre with a tap, tap, drag, flick, hold pattern on every beat from beat 4;
 * line 1 glides from left to right while turning 30° and carries a tap every
 * other beat. Notes stop two seconds before the music ends.
 *
 * @module
 */

/** Chart file formats of development charts. */
export type DevChartFormat = "pgr" | "rpe" | "pec";

/** Formats by `Math.floor(id / 100) % 3`: ids below 100 are official JSON. */
export const DEV_CHART_FORMATS: readonly DevChartFormat[] = ["pgr", "rpe", "pec"];

interface DevNote {
  line: number;
  kind: "tap" | "drag" | "flick" | "hold";
  beat: number;
  /** Hold length in beats. */
  length: number;
  /** Position along the line, -1..1 of the screen width. */
  x: number;
}

const BPM = 120;
/** Line 1's path: x and y on a 0..1 canvas (y up), and its rotation in degrees. */
const GLIDE = { x0: 0.25, x1: 0.75, y: 0.3, deg: 30 };

function notesFor(durationSecs: number): { notes: DevNote[]; endBeat: number } {
  const lastBeat = Math.max(5, Math.floor((durationSecs - 2) * (BPM / 60)));
  const notes: DevNote[] = [];
  const kinds = ["tap", "tap", "drag", "flick", "hold"] as const;
  for (let b = 4, i = 0; b <= lastBeat; b++, i++) {
    notes.push({
      line: 0,
      kind: kinds[i % 5]!,
      beat: b,
      length: kinds[i % 5] === "hold" ? 0.5 : 0,
      x: ((i % 7) - 3) * 0.2,
    });
    if (b % 2 === 0) notes.push({ line: 1, kind: "tap", beat: b, length: 0, x: 0 });
  }
  return { notes, endBeat: lastBeat + 2 };
}

/** The chart file of a development chart: its entry name and text. */
export function devChartFile(format: DevChartFormat, durationSecs: number): { name: string; text: string } {
  const c = notesFor(durationSecs);
  switch (format) {
    case "pgr":
      return { name: "chart.json", text: pgr(c.notes, c.endBeat) };
    case "rpe":
      return { name: "chart.json", text: rpe(c.notes, c.endBeat) };
    case "pec":
      return { name: "chart.pec", text: pec(c.notes, c.endBeat) };
  }
}

function pgr(notes: DevNote[], endBeat: number): string {
  const t = (beat: number) => beat * 32; // 1/32 beat units
  const forever = { startTime: 0, endTime: 1e9 };
  const pgrNote = (n: DevNote) => ({
    type: { tap: 1, drag: 2, hold: 3, flick: 4 }[n.kind],
    time: t(n.beat),
    positionX: n.x / 0.1125,
    holdTime: t(n.length),
    speed: 1,
    floorPosition: n.beat * 0.5,
  });
  const line = (i: number, move: unknown[], rotate: unknown[]) => ({
    bpm: BPM,
    notesAbove: notes.filter((n) => n.line === i).map(pgrNote),
    notesBelow: [],
    speedEvents: [{ ...forever, value: 1 }],
    judgeLineDisappearEvents: [{ ...forever, start: 1, end: 1 }],
    judgeLineMoveEvents: move,
    judgeLineRotateEvents: rotate,
  });
  const end = t(endBeat);
  return JSON.stringify({
    formatVersion: 3,
    offset: 0,
    judgeLineList: [
      line(0, [{ ...forever, start: 0.5, end: 0.5, start2: 0.5, end2: 0.5 }], [{ ...forever, start: 0, end: 0 }]),
      line(1, [
        { startTime: 0, endTime: end, start: GLIDE.x0, end: GLIDE.x1, start2: GLIDE.y, end2: GLIDE.y },
        { startTime: end, endTime: 1e9, start: GLIDE.x1, end: GLIDE.x1, start2: GLIDE.y, end2: GLIDE.y },
      ], [
        { startTime: 0, endTime: end, start: 0, end: GLIDE.deg },
        { startTime: end, endTime: 1e9, start: GLIDE.deg, end: GLIDE.deg },
      ]),
    ],
  });
}

function triple(beat: number): [number, number, number] {
  const whole = Math.floor(beat);
  return [whole, Math.round((beat - whole) * 100), 100];
}

function rpe(notes: DevNote[], endBeat: number): string {
  const ev = (from: number, to: number, start: number, end: number) => ({
    startTime: triple(from),
    endTime: triple(to),
    start,
    end,
    easingType: 1,
    easingLeft: 0,
    easingRight: 1,
    bezier: 0,
    bezierPoints: [0, 0, 0, 0],
    linkgroup: 0,
  });
  const px = (x01: number) => (x01 * 2 - 1) * 675;
  const py = (y01: number) => (y01 * 2 - 1) * 450;
  const rpeNote = (n: DevNote) => ({
    type: { tap: 1, hold: 2, flick: 3, drag: 4 }[n.kind],
    startTime: triple(n.beat),
    endTime: triple(n.beat + n.length),
    positionX: n.x * 675,
    above: 1,
    alpha: 255,
    isFake: 0,
    size: 1,
    speed: 1,
    yOffset: 0,
    visibleTime: 999999,
  });
  const line = (i: number, name: string, layer: Record<string, unknown>) => ({
    Name: name,
    Texture: "line.png",
    father: -1,
    isCover: 1,
    zOrder: 0,
    eventLayers: [{
      ...layer,
      speedEvents: [{ startTime: [0, 0, 1], endTime: triple(endBeat), start: 4.5, end: 4.5 }],
    }],
    notes: notes.filter((n) => n.line === i).map(rpeNote),
  });
  return JSON.stringify({
    META: { RPEVersion: 150, offset: 0, name: "dev", id: "dev", charter: "chorus", composer: "chorus", level: "dev" },
    BPMList: [{ bpm: BPM, startTime: [0, 0, 1] }],
    judgeLineList: [
      line(0, "centre", {
        moveXEvents: [ev(0, endBeat, 0, 0)],
        moveYEvents: [ev(0, endBeat, 0, 0)],
        rotateEvents: [ev(0, endBeat, 0, 0)],
        alphaEvents: [ev(0, endBeat, 255, 255)],
      }),
      line(1, "glide", {
        moveXEvents: [ev(0, endBeat, px(GLIDE.x0), px(GLIDE.x1))],
        moveYEvents: [ev(0, endBeat, py(GLIDE.y), py(GLIDE.y))],
        rotateEvents: [ev(0, endBeat, 0, -GLIDE.deg)],
        alphaEvents: [ev(0, endBeat, 255, 255)],
      }),
    ],
  });
}

function pec(notes: DevNote[], endBeat: number): string {
  const rows = ["150", `bp 0.000 ${BPM}`];
  const speed = (5.85 / 0.83175).toFixed(6); // the PGR speed 1 in PEC units
  const line = (i: number, x0: number, x1: number, y: number, deg: number) => {
    rows.push(`cv ${i} 0 ${speed}`, `cp ${i} 0 ${x0 * 2048} ${y * 1400}`, `cd ${i} 0 0`, `ca ${i} 0 255`);
    if (x0 !== x1 || deg !== 0) {
      rows.push(`cm ${i} 0 ${endBeat} ${x1 * 2048} ${y * 1400} 1`, `cr ${i} 0 ${endBeat} ${-deg} 1`);
    }
  };
  line(0, 0.5, 0.5, 0.5, 0);
  line(1, GLIDE.x0, GLIDE.x1, GLIDE.y, GLIDE.deg);
  for (const n of notes) {
    const x = n.x * 1024;
    if (n.kind === "hold") rows.push(`n2 ${n.line} ${n.beat} ${n.beat + n.length} ${x} 1 0`);
    else rows.push(`n${{ tap: 1, flick: 3, drag: 4 }[n.kind]} ${n.line} ${n.beat} ${x} 1 0`, "# 1.00", "& 1.00");
  }
  return rows.join("\n") + "\n";
}
