/**
 * PhiEditer text charts (`.pec`) to the model, with prpr's conversions: the
 * first line is the offset in ms (minus 150 ms); `bp <beat> <bpm>` before any
 * use of time; notes `n1`-`n4 <line> <beat> [<end beat>] <x> <above> <fake>`
 * with optional `# <speed>` and `& <size>`; line events `cv` (speed ÷ 5.85),
 * `cp`/`cm` (position on a 2048 × 1400 canvas), `cd`/`cr` (rotation,
 * negated), `ca`/`cf` (alpha 0..255). Beats become seconds through the BPM list.
 *
 * @module
 */

import { evalAnimOr } from "../../../static/chart/chart_model.js";
import {
  anim,
  bpmList,
  defaultObject,
  emptyAnim,
  EPS,
  fixedAnim,
  judgeLine,
  kf,
  note,
  timeAtBeats,
  TWEEN,
} from "../model/build.ts";
import type { AnimFloat, BpmList, Chart, JudgeLine, Keyframe, Note } from "../model/types.ts";
import { invalid, tooLarge } from "./errors.ts";
import { finishChart } from "./finish.ts";
import { Budget } from "./limits.ts";
import { rpeTween } from "./rpe_events.ts";

interface PecEvent {
  start: number;
  end: number;
  value: number;
  tween: number;
}

interface PecLine {
  speed: [number, number][];
  alpha: PecEvent[];
  moveX: PecEvent[];
  moveY: PecEvent[];
  rotate: PecEvent[];
  notes: Note[];
}

class Tokens {
  readonly #t: string[];
  #i = 0;
  readonly lineNo: number;

  constructor(text: string, lineNo: number) {
    this.#t = text.split(/\s+/).filter((s) => s !== "");
    this.lineNo = lineNo;
  }

  peek(): string | undefined {
    return this.#t[this.#i];
  }

  next(): string | undefined {
    return this.#t[this.#i++];
  }

  num(what: string): number {
    const s = this.next();
    const v = s === undefined ? NaN : Number(s);
    if (s === undefined || !Number.isFinite(v)) {
      invalid(
        `Cannot parse the chart: line ${this.lineNo}: expected ${what}, got ${
          s === undefined ? "end of line" : JSON.stringify(s.slice(0, 20))
        }`,
      );
    }
    return v;
  }

  int(what: string): number {
    const v = this.num(what);
    if (!Number.isInteger(v) || v < 0) {
      invalid(`Cannot parse the chart: line ${this.lineNo}: ${what} ${v} is not a whole number`);
    }
    return v;
  }
}

/** Instant events set a value; timed ones ease from the previous value (overlaps are cut at the previous end). */
function eventAnim(events: PecEvent[], line: number, what: string): AnimFloat {
  events.sort((a, b) => a.end - b.end || a.start - b.start);
  let lastEnd = -Infinity;
  for (const e of events) {
    if (e.start < lastEnd) e.start = lastEnd;
    lastEnd = e.end;
  }
  const kfs: Keyframe<number>[] = [];
  for (const e of events) {
    if (e.start === e.end) kfs.push(kf(e.start, e.value, TWEEN.hold));
    else {
      const last = kfs[kfs.length - 1];
      if (!last) {
        invalid(`Cannot parse the chart: judge line ${line}: a timed ${what} event comes before any ${what} value`);
      }
      kfs.push(kf(e.start, last.value, e.tween), kf(e.end, e.value, TWEEN.hold));
    }
  }
  return anim(kfs);
}

function heightAnim(speed: [number, number][], maxTime: number): AnimFloat {
  if (speed.length === 0) return emptyAnim();
  speed.sort((a, b) => a[0] - b[0]);
  if (speed[0]![0] >= EPS) speed.unshift([0, 0]);
  const kfs: Keyframe<number>[] = [];
  let height = 0, lastTime = 0, lastSpeed = 0;
  for (const [time, v] of speed) {
    height += (time - lastTime) * lastSpeed;
    kfs.push(kf(time, height, TWEEN.linear));
    [lastTime, lastSpeed] = [time, v];
  }
  kfs.push(kf(maxTime, height + (maxTime - lastTime) * lastSpeed, TWEEN.hold));
  return anim(kfs);
}

/** Parses PEC text. */
export function parsePec(text: string, budget = new Budget()): Chart {
  const rows = text.split(/\r?\n/);
  let offset: number | null = null;
  const bpmChanges: [number, number][] = [];
  let bpm: BpmList | null = null;
  const lines: PecLine[] = [];
  let lastNote: Note | null = null;
  const time = (t: Tokens) => {
    bpm ??= bpmList(bpmChanges.sort((a, b) => a[0] - b[0]));
    return timeAtBeats(bpm, t.num("a beat"));
  };
  const lineAt = (t: Tokens): PecLine => {
    const i = t.int("a judge line number");
    if (i >= budget.limits.maxLines) {
      tooLarge(`Cannot parse the chart: line ${t.lineNo}: judge line ${i}, over ${budget.limits.maxLines}`);
    }
    while (lines.length <= i) lines.push({ speed: [], alpha: [], moveX: [], moveY: [], rotate: [], notes: [] });
    return lines[i]!;
  };
  for (let n = 0; n < rows.length; n++) {
    const t = new Tokens(rows[n]!, n + 1);
    if (offset === null) {
      offset = t.num("the offset in milliseconds") / 1000 - 0.15;
      continue;
    }
    const cmd = t.next();
    if (cmd === undefined) continue;
    if (cmd === "bp") {
      if (bpm !== null) invalid(`Cannot parse the chart: line ${n + 1}: a BPM change after the first timed command`);
      const beat = t.num("a beat"), v = t.num("a BPM");
      if (!(v > 0)) invalid(`Cannot parse the chart: line ${n + 1}: BPM ${v} is not positive`);
      if (bpmChanges.length >= budget.limits.maxBpmChanges) {
        tooLarge(`Cannot parse the chart: over ${budget.limits.maxBpmChanges} BPM changes`);
      }
      bpmChanges.push([beat, v]);
    } else if (/^n[1-4]$/.test(cmd)) {
      const line = lineAt(t);
      const start = time(t);
      const kind = cmd === "n1"
        ? "Click"
        : cmd === "n2"
        ? { Hold: { end_time: time(t), end_height: 0 } }
        : cmd === "n3"
        ? "Flick"
        : "Drag";
      const object = defaultObject();
      object.translation.x = fixedAnim(t.num("an x position") / 1024);
      const above = t.int("the above flag") === 1;
      const fake = t.int("the fake flag") === 1;
      budget.notes(1);
      budget.keyframes(1);
      lastNote = note(kind, start, { object, above, fake });
      line.notes.push(lastNote);
      applyModifiers(t, lastNote);
    } else if (cmd === "#" || cmd === "&") {
      if (lastNote) applyModifiers(new Tokens(rows[n]!, n + 1), lastNote);
    } else if (/^c[vpdamrf]$/.test(cmd)) {
      const line = lineAt(t);
      const start = time(t);
      budget.keyframes(2);
      const single = (value: number): PecEvent => ({ start, end: start, value, tween: TWEEN.hold });
      switch (cmd[1]) {
        case "v":
          line.speed.push([start, t.num("a speed") / 5.85]);
          break;
        case "p":
          line.moveX.push(single(t.num("an x position")));
          line.moveY.push(single(t.num("a y position")));
          break;
        case "d":
          line.rotate.push(single(-t.num("an angle")));
          break;
        case "a":
          line.alpha.push(single(t.num("an alpha")));
          break;
        case "m": {
          const end = time(t), x = t.num("an x position"), y = t.num("a y position"), tw = rpeTween(t.int("an easing"));
          line.moveX.push({ start, end, value: x, tween: tw });
          line.moveY.push({ start, end, value: y, tween: tw });
          break;
        }
        case "r": {
          const end = time(t), v = -t.num("an angle");
          line.rotate.push({ start, end, value: v, tween: rpeTween(t.int("an easing")) });
          break;
        }
        default: {
          const end = time(t);
          line.alpha.push({ start, end, value: t.num("an alpha"), tween: TWEEN.linear });
        }
      }
    } else invalid(`Cannot parse the chart: line ${n + 1}: unknown command ${JSON.stringify(cmd.slice(0, 20))}`);
  }
  let maxTime = 0;
  for (const l of lines) {
    for (const e of [...l.alpha, ...l.rotate, ...l.moveX, ...l.moveY]) maxTime = Math.max(maxTime, e.end);
    for (const [s] of l.speed) maxTime = Math.max(maxTime, s);
    for (const nt of l.notes) maxTime = Math.max(maxTime, nt.time);
  }
  maxTime += 1;
  const out: JudgeLine[] = lines.map((l, i) => {
    const height = heightAnim(l.speed, maxTime);
    for (const nt of l.notes) {
      nt.height = evalAnimOr(height, nt.time, 0);
      if (typeof nt.kind === "object") nt.kind.Hold.end_height = evalAnimOr(height, nt.kind.Hold.end_time, 0);
    }
    for (const e of l.moveX) e.value = e.value / 2048 * 2 - 1;
    for (const e of l.moveY) e.value = e.value / 1400 * 2 - 1;
    for (const e of l.alpha) if (e.value >= 0) e.value /= 255;
    const object = defaultObject();
    object.alpha = eventAnim(l.alpha, i, "alpha");
    object.translation = { x: eventAnim(l.moveX, i, "move"), y: eventAnim(l.moveY, i, "move") };
    object.rotation = eventAnim(l.rotate, i, "rotate");
    object.scale = { x: fixedAnim(3.91 / 6), y: emptyAnim() };
    return judgeLine({ object, height, notes: l.notes });
  });
  const chart: Chart = {
    music: null,
    offset: offset ?? 0,
    lines: out,
    bpm_list: bpm ?? bpmList(bpmChanges),
    settings: { pe_alpha_extension: false, hold_partial_cover: false },
    hitsounds: [],
  };
  finishChart(chart);
  return chart;
}

/** `# <speed>` and `& <size>` after a note (on its line or the next ones). */
function applyModifiers(t: Tokens, n: Note): void {
  for (let op = t.peek(); op === "#" || op === "&"; op = t.peek()) {
    t.next();
    const v = t.num(op === "#" ? "a speed" : "a size");
    if (op === "#") n.speed = v;
    else if (Math.abs(v - 1) >= EPS) n.object.scale.x = fixedAnim(v);
  }
}
