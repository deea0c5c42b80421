// The chart under each player's touches: the chart the room plays, loaded
// from `/chart/{id}.json` once per chart for all panels, drawn at the
// player's own playback time with their live judgements (chart_plan.js
// decides what is where; this file only paints it).
//
//   const charts = installChartLayer(chorusSpectator, { url: (id) => `/chart/${id}.json` });
//   charts.select(42); // the room chose chart 42: load it now (ready gates wait for it)
//
// Read-only debug hook for tests and the curious: `chorusSpectator.chart`
// (`state`, `id`, `name`, `error`, `panel(userId)` → the last frame's counts).

import * as model from "./chart_model.js";
import { chartTime, JudgeBook, JUDGEMENT_COLORS, planFrame } from "./chart_plan.js";
import { ChartSource } from "./chart_source.js";

/** Note colours by kind (the game's default skin: blue taps and holds, yellow drags, red flicks). */
const NOTE_COLORS = { click: "#0ac3ff", drag: "#f0ed69", flick: "#fe4365", hold: "#0ac3ff" };
/** Sizes in chart units (the screen is 2 wide). */
const NOTE_HALF = 0.0975;
const NOTE_THICK = 0.022;
const HOLD_HALF = 0.07;
const LINE_THICK = 0.0075;

/** One panel's chart layer: its player's judgements and the drawing. */
export class ChartLayer {
  /** `panel` (its `newest` frame time stops the chart where the player stopped) may be null. */
  constructor(source, panel = null) {
    this.name = "chart";
    this.source = source;
    this.panel = panel;
    this.book = new JudgeBook();
    this.last = null;
    this.frames = 0;
  }

  reset() {
    this.book.clear();
    this.last = null;
  }

  /** The player's live judge events. */
  addJudges(judges) {
    this.book.add(judges);
  }

  draw(ctx, view) {
    const prep = this.source.prepared;
    if (prep) {
      const frame = planFrame(prep, chartTime(view.time, this.panel?.newest), this.book, model);
      this.last = frame;
      this.frames++;
      ctx.save();
      paint(ctx, view, prep, frame);
      ctx.restore();
    }
    caption(ctx, view, this.source.caption(), this.last && prep ? this.last.time / Math.max(1, prep.end) : null);
    // The panel counts what its layers drew as touches; notes are not touches.
    return 0;
  }

  /** The last frame, summarised (a copy). */
  debug() {
    const f = this.last;
    return {
      frames: this.frames,
      time: f ? f.time : null,
      counts: f ? structuredClone(f.counts) : null,
      judgements: this.book.events.length,
    };
  }
}

function paint(ctx, view, prep, frame) {
  const { width, height } = view;
  // Chart units to pixels, y up: the game's viewport fills the canvas.
  ctx.setTransform(width / 2, 0, 0, -(height * prep.aspect) / 2, width / 2, height / 2);
  for (const line of frame.lines) {
    if (line.alpha <= 0 || line.kind !== "normal") continue;
    const half = (prep.lineLength / 2) * line.scaleX;
    ctx.save();
    ctx.translate(line.x, line.y);
    ctx.rotate(line.rotation);
    ctx.globalAlpha = line.alpha;
    ctx.fillStyle = line.color;
    ctx.fillRect(-half, -LINE_THICK / 2, 2 * half, LINE_THICK);
    ctx.restore();
  }
  for (const line of frame.lines) {
    if (line.notes.length === 0) continue;
    ctx.save();
    ctx.translate(line.x, line.y);
    ctx.rotate(line.rotation);
    for (const n of line.notes) drawNote(ctx, n);
    ctx.restore();
  }
  for (const e of frame.effects) drawEffect(ctx, e);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.globalAlpha = 1;
  for (const line of frame.lines) {
    if (line.kind !== "text" || !line.text || line.alpha <= 0) continue;
    ctx.fillStyle = line.color;
    ctx.globalAlpha = line.alpha;
    ctx.font = `${Math.max(10, height * 0.05)}px system-ui, sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(line.text, ((line.x + 1) / 2) * width, ((1 - line.y * prep.aspect) / 2) * height);
  }
}

function drawNote(ctx, n) {
  const color = n.state === "miss" ? JUDGEMENT_COLORS.miss : NOTE_COLORS[n.kind];
  ctx.globalAlpha = n.alpha;
  if (n.kind === "hold" && n.endY !== null) {
    const lo = Math.min(n.y, n.endY), hi = Math.max(n.y, n.endY);
    ctx.globalAlpha = n.alpha * (n.state === "pending" ? 0.55 : 0.8);
    ctx.fillStyle = n.state === "held" && n.cls ? JUDGEMENT_COLORS[n.cls] : color;
    ctx.fillRect(n.x - HOLD_HALF, lo, 2 * HOLD_HALF, hi - lo);
    ctx.globalAlpha = n.alpha;
    ctx.fillRect(n.x - HOLD_HALF, n.endY - NOTE_THICK / 4, 2 * HOLD_HALF, NOTE_THICK / 2);
  }
  ctx.fillStyle = color;
  const thick = n.kind === "drag" ? NOTE_THICK * 0.6 : NOTE_THICK;
  ctx.fillRect(n.x - NOTE_HALF, n.y - thick / 2, 2 * NOTE_HALF, thick);
  if (n.kind === "flick") {
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(n.x - NOTE_HALF * 0.3, n.y - thick / 4, NOTE_HALF * 0.6, thick / 2);
  }
  if (n.multi && n.state === "pending") {
    ctx.strokeStyle = "#fff3b0";
    ctx.lineWidth = NOTE_THICK * 0.25;
    ctx.strokeRect(n.x - NOTE_HALF, n.y - thick / 2, 2 * NOTE_HALF, thick);
  }
}

function drawEffect(ctx, e) {
  const color = JUDGEMENT_COLORS[e.cls];
  ctx.save();
  ctx.translate(e.x, e.y);
  ctx.rotate(e.rotation);
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  if (e.kind === "hit") {
    const k = 1 - (1 - e.age) * (1 - e.age);
    const size = 0.05 + 0.09 * k;
    ctx.globalAlpha = 1 - e.age;
    ctx.lineWidth = 0.014 * (1 - e.age) + 0.003;
    ctx.strokeRect(-size, -size, 2 * size, 2 * size);
    ctx.globalAlpha = (1 - e.age) * 0.4;
    ctx.fillRect(-size * 0.55, -size * 0.55, size * 1.1, size * 1.1);
    // Four sparks flying out along the diagonals.
    ctx.globalAlpha = 1 - e.age;
    const d = 0.05 + 0.16 * k, s = 0.012 * (1 - e.age);
    for (const [sx, sy] of [[1, 1], [-1, 1], [1, -1], [-1, -1]]) ctx.fillRect(sx * d - s, sy * d - s, 2 * s, 2 * s);
  } else {
    const size = 0.04 + 0.03 * e.age;
    ctx.globalAlpha = 0.9 - 0.6 * e.age;
    ctx.lineWidth = 0.008;
    ctx.strokeRect(-size, -size, 2 * size, 2 * size);
  }
  ctx.restore();
}

function caption(ctx, view, text, progress) {
  const { width, height } = view;
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  if (progress !== null) {
    // The game's progress bar: how far into the chart the player is.
    ctx.fillStyle = "rgba(230, 237, 243, 0.55)";
    ctx.fillRect(0, 0, width * Math.min(1, Math.max(0, progress)), Math.max(2, height * 0.006));
  }
  if (text) {
    const size = Math.max(10, Math.round(height * 0.045));
    ctx.font = `${size}px system-ui, sans-serif`;
    ctx.fillStyle = "rgba(139, 152, 165, 0.9)";
    ctx.textBaseline = "top";
    ctx.fillText(text, size * 0.6, size * 0.6, width - size * 1.2);
  }
  ctx.restore();
}

/**
 * Adds the chart layer to the spectator (under the touches), a ready gate that loads the room's chart before the
 * page says Ready, and the read-only `spectator.chart` hook. Returns the {@link ChartSource}.
 */
export function installChartLayer(spectator, options) {
  const source = new ChartSource(options);
  spectator.view.addLayer("chart", (panel) => new ChartLayer(source, panel), { below: "touches" });
  spectator.readyGates.push((_room, chart) => source.select(chart));
  const layerOf = (id) => spectator.view.get(id)?.layers.find((l) => l.name === "chart") ?? null;
  spectator.chart = Object.freeze({
    get state() {
      return source.state;
    },
    get id() {
      return source.id;
    },
    get name() {
      return source.prepared?.info?.name ?? null;
    },
    get error() {
      return source.error;
    },
    /** The last frame drawn for player `id`: `{frames, time, counts, judgements}`, or null. */
    panel: (id) => layerOf(id)?.debug() ?? null,
  });
  return source;
}
