// @ts-self-types="./chart_plan.d.ts"
// What the spectator's chart layer draws at one instant, as plain data: the
// judge lines where the chart's animations put them, the notes within reach
// of the screen, and the judgement flashes of a player's live `Judges`. Pure
// (no DOM, no clock): `chart_layer.js` paints the result on a canvas, and
// Deno tests check the timing against the server's own chart parsers.
//
// Time is the player's chart time, the `time` of their `Touches` and
// `Judges` frames (Phira's `res.time`: music position minus the chart and
// user offsets), so the model's note and keyframe times apply as they are.
// Coordinates are the chart model's (docs/chart.md): x from -1 (left) to 1,
// y up, from -1/aspect to 1/aspect; rotation counter-clockwise.
//
// The evaluation functions of `chart_model.js` are passed in (`model`)
// rather than imported: the page serves that file beside this one, the
// repository keeps it in `static/chart/`.

/** Colours of the judgement classes (the page's counter colours, spectator.css). */
export const JUDGEMENT_COLORS = Object.freeze({
  perfect: "#f5d76e",
  good: "#7fd4f5",
  bad: "#f29b72",
  miss: "#8b98a5",
});

const CLASS_OF = {
  Perfect: "perfect",
  HoldPerfect: "perfect",
  Good: "good",
  HoldGood: "good",
  Bad: "bad",
  Miss: "miss",
};

/** The colour class of a wire judgement (`HoldPerfect` counts as perfect, `HoldGood` as good); null if unknown. */
export function judgementClass(judgement) {
  return CLASS_OF[judgement] ?? null;
}

/** How far the chart may run past the player's newest frame before it stops (the game sends one at least every ~1 s). */
export const RUN_AHEAD_S = 1;

/**
 * The chart time to draw: the panel's playback time, but never more than {@link RUN_AHEAD_S} past the newest frame
 * the player sent, so the chart stops where the player stopped (finished, gave up, lost the connection) instead of
 * playing on by itself.
 */
export function chartTime(viewTime, newest) {
  return newest === null || newest === undefined ? viewTime : Math.min(viewTime, newest + RUN_AHEAD_S);
}

/** Note kinds as the plan names them. */
export const NOTE_KINDS = Object.freeze(["click", "drag", "flick", "hold"]);
const HOLD = 3;

/** A note not yet judged stays visible this long past its line (the game's late judging window, 160 ms, and some). */
export const LATE_S = 0.2;
/** How long a judgement flash lasts. */
export const EFFECT_S = 0.5;
/** How long a missed note fades out. */
export const MISS_FADE_S = 0.35;
/** Judge events kept per player (a chart has at most 200 000 notes, a hold two events). */
export const MAX_JUDGE_EVENTS = 400_000;
/** Notes slower than this (height units per second) are checked every frame instead of by height. */
const MIN_SPEED = 1e-3;

function noteKind(kind) {
  if (typeof kind === "object" && kind !== null && kind.Hold) return HOLD;
  return kind === "Drag" ? 1 : kind === "Flick" ? 2 : 0;
}

function lineKind(kind) {
  if (kind === "Normal") return "normal";
  if (kind && typeof kind === "object") {
    if ("Text" in kind) return "text";
    if ("Paint" in kind) return "paint";
    return "texture";
  }
  return "normal";
}

/** First index of the sorted `values` that is >= `x`. */
export function lowerBound(values, x) {
  let lo = 0, hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Precomputes what every frame needs from a `GET /chart/{id}.json` body: per line its notes sorted by height (a
 * frame looks up only those within reach), their times, kinds and hold ends, and the lines in drawing order.
 */
export function prepareChart(data) {
  const { info, chart } = data;
  const aspect = info && info.aspect_ratio > 0 ? info.aspect_ratio : 16 / 9;
  let notes = 0, end = 0;
  const lines = chart.lines.map((line, index) => {
    const all = line.notes.map((n, id) => {
      const kind = noteKind(n.kind);
      const endTime = kind === HOLD ? n.kind.Hold.end_time : n.time;
      const endHeight = kind === HOLD ? n.kind.Hold.end_height : n.height;
      end = Math.max(end, endTime);
      return {
        id,
        note: n,
        kind,
        time: n.time,
        endTime,
        lo: Math.min(n.height, endHeight),
        hi: Math.max(n.height, endHeight),
        speed: Math.abs(n.speed),
        above: n.above !== false,
        fake: Boolean(n.fake),
        multi: Boolean(n.multiple_hint),
      };
    });
    notes += all.length;
    const moving = all.filter((n) => n.speed >= MIN_SPEED).sort((a, b) => a.lo - b.lo);
    let maxSpan = 0, minSpeed = Infinity;
    for (const n of moving) {
      maxSpan = Math.max(maxSpan, n.hi - n.lo);
      minSpeed = Math.min(minSpeed, n.speed);
    }
    const k = lineKind(line.kind);
    return {
      index,
      line,
      notes: all,
      byHeight: moving,
      heights: Float64Array.from(moving, (n) => n.lo),
      still: all.filter((n) => n.speed < MIN_SPEED),
      maxSpan,
      minSpeed,
      kind: k,
      text: k === "text" ? line.kind.Text : null,
      hasColor: Boolean(line.color && line.color.keyframes.length),
      showBelow: Boolean(line.show_below),
    };
  });
  const order = lines.map((_, i) => i).sort((a, b) => (chart.lines[a].z_index - chart.lines[b].z_index) || a - b);
  return {
    info,
    chart,
    aspect,
    lineLength: info && info.line_length > 0 ? info.line_length : 6,
    lines,
    order,
    notes,
    end,
  };
}

/**
 * One player's judgements, from the live `Judges` stream: per note its hold-head event (`HoldPerfect`/`HoldGood`)
 * and its final one, and all events in time order for the flashes and the tallies shown so far.
 */
export class JudgeBook {
  constructor(limit = MAX_JUDGE_EVENTS) {
    this.limit = limit;
    this.clear();
  }

  /** Forgets everything (a new round). */
  clear() {
    this.events = [];
    this.byLine = new Map();
    this.cursor = 0;
    this.shown = { perfect: 0, good: 0, bad: 0, miss: 0 };
    this.dropped = 0;
  }

  /** Adds wire `JudgeEvent`s (`{time, line_id, note_id, judgement}`); unknown judgements and overflow are dropped. */
  add(judges) {
    for (const j of judges) {
      const cls = judgementClass(j.judgement);
      if (cls === null || !Number.isFinite(j.time) || this.events.length >= this.limit) {
        this.dropped++;
        continue;
      }
      const ev = {
        time: j.time,
        line: j.line_id,
        note: j.note_id,
        cls,
        head: j.judgement.startsWith("Hold"),
        pos: null,
      };
      const at = this.events.length === 0 || this.events[this.events.length - 1].time <= ev.time
        ? this.events.length
        : this.#insertAt(ev.time);
      this.events.splice(at, 0, ev);
      // An event before what was already counted: count again from the start.
      if (at < this.cursor) this.#recount();
      let notes = this.byLine.get(ev.line);
      if (!notes) this.byLine.set(ev.line, notes = new Map());
      let rec = notes.get(ev.note);
      if (!rec) notes.set(ev.note, rec = { head: null, final: null });
      // The first event of each kind counts (the game judges a note once).
      if (ev.head) rec.head ??= ev;
      else rec.final ??= ev;
    }
  }

  /** The judgements of note `note` of line `line`: `{head, final}` or undefined. */
  record(line, note) {
    return this.byLine.get(line)?.get(note);
  }

  /** Counts by class of the events at or before `t` (what the spectator has been shown). */
  advance(t) {
    if (this.cursor > 0 && this.events[this.cursor - 1].time > t) this.#recount();
    while (this.cursor < this.events.length && this.events[this.cursor].time <= t) {
      this.shown[this.events[this.cursor].cls]++;
      this.cursor++;
    }
    return this.shown;
  }

  /** Index of the first event after time `t`. */
  after(t) {
    let lo = 0, hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid].time <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #insertAt(time) {
    return this.after(time);
  }

  #recount() {
    this.cursor = 0;
    this.shown = { perfect: 0, good: 0, bad: 0, miss: 0 };
  }
}

/** The judge line's colour without a colour animation: gold while all-perfect, blue while full combo, else white. */
export function lineColorFor(shown) {
  if (shown.bad + shown.miss > 0) return "#ffffff";
  return shown.good > 0 ? JUDGEMENT_COLORS.good : JUDGEMENT_COLORS.perfect;
}

/**
 * Maps chart coordinates to canvas pixels for a `width` × `height` canvas showing the game's viewport: chart
 * points (y up, ±1/aspect) and touch points as the game sends them (y down, multiplied by the aspect ratio: ±1).
 */
export function canvasMapping(width, height, aspect) {
  return {
    fromChart: (x, y) => [((x + 1) / 2) * width, ((1 - y * aspect) / 2) * height],
    fromTouch: (x, y) => [((x + 1) / 2) * width, ((y + 1) / 2) * height],
  };
}

function rgba(c) {
  const ch = (v) => Math.round(Math.min(1, Math.max(0, v)) * 255);
  return `rgba(${ch(c.r)}, ${ch(c.g)}, ${ch(c.b)}, ${Math.min(1, Math.max(0, c.a))})`;
}

/**
 * The frame at chart time `t`: `{time, lines, effects, counts}`. Each line (in z order) has its centre `x`, `y`,
 * `rotation` (radians, counter-clockwise), `alpha`, `scaleX`, `color`, `kind`, `text` and its visible `notes`: `x`
 * along the line and `y` away from it (positive = towards the note's side, below notes already mirrored), `endY` for
 * holds, `kind`, `alpha`, `state` (`pending`, `held`, `miss`), `cls` (judgement class of a held or missed note).
 * Effects are judgement flashes in chart coordinates with `age` 0..1.
 */
export function planFrame(prep, t, book, model) {
  const { chart, info, aspect } = prep;
  const shown = book.advance(t);
  const frame = { time: t, lines: [], effects: [], counts: null };
  let notes = 0;
  const defaultColor = lineColorFor(shown);
  for (const li of prep.order) {
    const L = prep.lines[li];
    const s = model.lineStateAt(chart, info, li, t);
    const rotation = (s.rotation * Math.PI) / 180;
    const color = L.hasColor ? rgba(model.evalAnimOr(L.line.color, t, { r: 1, g: 1, b: 1, a: 1 })) : defaultColor;
    const entry = {
      index: li,
      x: s.x,
      y: s.y,
      rotation,
      alpha: Math.min(1, Math.max(0, s.alpha)),
      scaleX: s.scale_x,
      color,
      kind: L.kind,
      text: L.text ? String(model.evalAnimOr(L.text, t, "")) : null,
      notes: [],
    };
    frame.lines.push(entry);
    // A line with a negative alpha hides its notes too (prpr without the PE alpha extension).
    if (s.alpha < 0 || L.notes.length === 0) continue;
    const cos = Math.cos(rotation), sin = Math.sin(rotation);
    // Farthest a visible point can be from this line's centre, in chart units; in height units per the slowest note.
    const reach = Math.hypot(Math.abs(s.x) + 1, Math.abs(s.y) + 1 / aspect) + 0.25;
    const consider = (n) => {
      const p = placeNote(n, L, li, s, t, book, model, info, cos, sin, aspect);
      if (p) entry.notes.push(p);
    };
    if (L.byHeight.length) {
      const span = (reach * aspect) / L.minSpeed;
      const from = lowerBound(L.heights, s.height - span - L.maxSpan);
      for (let i = from; i < L.heights.length && L.heights[i] <= s.height + span; i++) consider(L.byHeight[i]);
    }
    for (const n of L.still) consider(n);
    notes += entry.notes.length;
  }
  addEffects(frame, prep, t, book, model);
  const byClass = { perfect: 0, good: 0, bad: 0, miss: 0 };
  for (const e of frame.effects) byClass[e.cls]++;
  frame.counts = {
    lines: frame.lines.filter((l) => l.alpha > 0).length,
    notes,
    effects: frame.effects.length,
    effectsByClass: byClass,
    shown: { ...shown },
  };
  return frame;
}

/** Where note `n` is drawn at `t`, or null when it is not (judged, gone, off screen). */
function placeNote(n, L, li, s, t, book, model, info, cos, sin, aspect) {
  const rec = book.record(li, n.id);
  const final = rec && rec.final && rec.final.time <= t ? rec.final : null;
  const head = rec && rec.head && rec.head.time <= t ? rec.head : null;
  let state = "pending", cls = null, fade = 1;
  if (final) {
    // Hit (perfect, good, bad): gone, its flash shows the judgement. Missed: it fades out where it goes.
    if (final.cls !== "miss") return null;
    const age = t - final.time;
    if (age > MISS_FADE_S) return null;
    state = "miss";
    cls = "miss";
    fade = 1 - age / MISS_FADE_S;
  } else if (n.kind === HOLD && (head || n.fake) && t >= n.time) {
    // Being held: the head stays on the line until the hold's end (and its final judgement).
    if (t > n.endTime + LATE_S) return null;
    state = "held";
    cls = head ? head.cls : null;
  } else if (t > n.time) {
    if (n.fake) return null;
    const late = t - n.time;
    // Past its line and not judged (yet): visible for the late window, or for good when the line shows notes below.
    if (late > LATE_S && !(L.showBelow && t <= n.endTime + 1)) return null;
    fade = late > LATE_S ? 0.5 : 1 - (late / LATE_S) * 0.5;
  }
  const o = model.noteOffsetAt(n.note, s.height, info, t);
  const alpha = o.alpha * fade;
  if (!(alpha > 0)) return null;
  let y = state === "held" ? 0 : o.y;
  let endY = o.end_y;
  if (state === "held" && endY !== null && endY < 0) endY = 0;
  if (!n.above) {
    y = -y;
    if (endY !== null) endY = -endY;
  }
  // Off screen: skip (holds are long; they are kept when any part may show).
  if (n.kind !== HOLD) {
    const wx = s.x + cos * o.x - sin * y, wy = s.y + sin * o.x + cos * y;
    if (Math.abs(wx) > 1.2 || Math.abs(wy) > 1 / aspect + 0.2) return null;
  }
  return { id: n.id, kind: NOTE_KINDS[n.kind], x: o.x, y, endY, alpha: Math.min(1, alpha), state, cls, multi: n.multi };
}

/** Flashes of the hits of the last {@link EFFECT_S} seconds, and a spark on the line under every held hold. */
function addEffects(frame, prep, t, book, model) {
  const events = book.events;
  for (let i = book.after(t - EFFECT_S); i < events.length && events[i].time <= t; i++) {
    const ev = events[i];
    if (ev.cls === "miss") continue;
    if (ev.posFor !== prep) {
      ev.posFor = prep;
      ev.pos = hitPosition(prep, ev, model);
    }
    if (ev.pos) frame.effects.push({ ...ev.pos, age: (t - ev.time) / EFFECT_S, cls: ev.cls, kind: "hit" });
  }
  for (const line of frame.lines) {
    for (const n of line.notes) {
      if (n.state !== "held" || n.cls === null) continue;
      const c = Math.cos(line.rotation), s = Math.sin(line.rotation);
      frame.effects.push({
        x: line.x + c * n.x,
        y: line.y + s * n.x,
        rotation: line.rotation,
        age: (t * 4) % 1,
        cls: n.cls,
        kind: "hold",
      });
    }
  }
}

/** Where a judgement happened: on its line, at its note's place along it, at the judgement's time. */
function hitPosition(prep, ev, model) {
  const L = prep.lines[ev.line];
  const n = L && L.notes[ev.note];
  if (!n) return null;
  const s = model.lineStateAt(prep.chart, prep.info, ev.line, ev.time);
  const r = (s.rotation * Math.PI) / 180;
  const x = model.evalAnimOr(n.note.object.translation.x, ev.time, 0);
  return { x: s.x + Math.cos(r) * x, y: s.y + Math.sin(r) * x, rotation: r };
}
