// Player panels of a watched room: a canvas per player drawn by a stack of
// layers, and the live counters beside it.
//
// Layers: a panel draws its layers bottom to top every animation frame. A
// layer is an object with `draw(ctx, view)` (and optionally `reset()` for a
// new round), made per panel by a factory registered on the LiveView:
//
//   view.addLayer("chart", (panel) => new ChartLayer(panel, chart), { below: "touches" });
//
// `view` describes the playfield of this frame: `width`/`height` in device
// pixels, `time` = the player's game time shown now (seconds into the chart),
// and `toCanvas(x, y)` from the game's normalized coordinates to pixels. So a
// chart layer (notes and judge lines from `/chart/{id}.json`) slots in under
// the touches and stays in step with them.
//
// Time: the game client sends touches in batches (about one a second), each
// frame stamped with the chart time. A panel plays them back in order, a
// short buffer behind the newest frame, so motion is smooth instead of a
// jump per batch; the buffer restarts when the times jump (a new round).

import { formatAccuracy, formatScore, PlayerStats } from "./player_stats.js";

/** Playback delay behind the newest received frame, seconds (covers one batch). */
const BUFFER_S = 1.1;
/** How long a touch point stays visible, seconds. */
const TRAIL_S = 0.45;
/** Points kept per player. */
const MAX_POINTS = 512;
/** Playfield aspect ratio (width / height). */
const ASPECT = 16 / 9;

/** Maps game coordinates (x in -1..1 left to right, y in -1/aspect..1/aspect top to bottom) to canvas pixels. */
export function playfield(width, height) {
  return {
    width,
    height,
    toCanvas: (x, y) => [((x + 1) / 2) * width, ((y * ASPECT + 1) / 2) * height],
    /** Pixels per game unit. */
    scale: width / 2,
  };
}

/** Draws touch points as they are played back: a fading trail per finger. */
export class TouchLayer {
  constructor() {
    this.name = "touches";
    this.points = [];
  }

  reset() {
    this.points = [];
  }

  /** Adds received frames (`{time, points: [{finger, x, y}]}`). */
  add(frames) {
    for (const frame of frames) {
      for (const p of frame.points) this.points.push({ time: frame.time, finger: p.finger, x: p.x, y: p.y });
    }
    if (this.points.length > MAX_POINTS) this.points.splice(0, this.points.length - MAX_POINTS);
  }

  draw(ctx, view) {
    const alive = this.points.filter((p) => p.time <= view.time && view.time - p.time < TRAIL_S);
    const byFinger = new Map();
    for (const p of alive) {
      if (!byFinger.has(p.finger)) byFinger.set(p.finger, []);
      byFinger.get(p.finger).push(p);
    }
    const r = Math.max(3, view.scale * 0.035);
    ctx.lineCap = "round";
    for (const [finger, trail] of byFinger) {
      const hue = (finger * 67 + 190) % 360;
      for (let i = 0; i < trail.length; i++) {
        const p = trail[i];
        const fade = 1 - (view.time - p.time) / TRAIL_S;
        const [x, y] = view.toCanvas(p.x, p.y);
        if (i > 0) {
          const [px, py] = view.toCanvas(trail[i - 1].x, trail[i - 1].y);
          ctx.strokeStyle = `hsla(${hue}, 90%, 70%, ${fade * 0.6})`;
          ctx.lineWidth = r * 0.8;
          ctx.beginPath();
          ctx.moveTo(px, py);
          ctx.lineTo(x, y);
          ctx.stroke();
        }
        ctx.fillStyle = `hsla(${hue}, 90%, 70%, ${fade})`;
        ctx.beginPath();
        ctx.arc(x, y, i === trail.length - 1 ? r * 1.4 : r * 0.7, 0, Math.PI * 2);
        ctx.fill();
      }
    }
    return alive.length;
  }
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = String(text);
  return node;
}

const COUNTERS = [
  ["perfect", "Perfect"],
  ["good", "Good"],
  ["bad", "Bad"],
  ["miss", "Miss"],
  ["combo", "Combo"],
  ["max-combo", "Max combo"],
  ["accuracy", "Accuracy"],
];

/** One player's panel: name, canvas with layers, counters. */
export class PlayerPanel {
  constructor(user, factories) {
    this.id = user.id;
    this.name = user.name;
    this.stats = new PlayerStats();
    this.score = null;
    this.newest = null;
    this.anchor = null;
    this.touchesReceived = 0;
    this.root = el("article", "player");
    this.root.dataset.player = String(user.id);
    const head = el("header", "player-head");
    const title = el("div", "player-title");
    title.append(el("h3", "player-name", user.name), el("span", "badge player-state", "waiting"));
    this.scoreCell = el("span", "score", "—");
    this.scoreCell.title = "score";
    head.append(title, this.scoreCell);
    this.canvas = el("canvas", "playfield");
    this.canvas.dataset.touches = "0";
    this.canvas.setAttribute("role", "img");
    this.canvas.setAttribute("aria-label", `touches of ${user.name}`);
    const counters = el("dl", "counters");
    this.cells = {};
    for (const [key, label] of COUNTERS) {
      const box = el("div", `counter ${key}-box`);
      const value = el("dd", key, key === "accuracy" ? "100.00%" : "0");
      box.append(el("dt", "", label), value);
      counters.append(box);
      this.cells[key] = value;
    }
    this.root.append(head, this.canvas, counters);
    this.touches = new TouchLayer();
    this.layers = factories.map((f) => f.make(this));
  }

  /** Sets the state badge (`waiting`, `ready`, `playing`, `finished`, `aborted`). */
  setState(text) {
    this.root.querySelector(".player-state").textContent = text;
    this.root.dataset.state = text;
  }

  /** A new round: counters, score and layers start over. */
  reset() {
    this.stats.reset();
    this.score = null;
    this.newest = null;
    this.anchor = null;
    for (const layer of this.layers) layer.reset?.();
    this.render();
  }

  /** Received touch frames. */
  addTouches(frames) {
    this.touches.add(frames);
    this.touchesReceived += frames.reduce((n, f) => n + f.points.length, 0);
    this.canvas.dataset.touches = String(this.touchesReceived);
    for (const f of frames) this.#seen(f.time);
  }

  /** Received judge events. */
  addJudges(judges) {
    for (const j of judges) {
      this.stats.add(j.judgement);
      this.#seen(j.time);
    }
    this.render();
  }

  /** The player's result (`Message::Played`). */
  setScore(score) {
    this.score = score;
    this.render();
  }

  /** Updates the counters' text. */
  render() {
    const s = this.stats;
    this.cells.perfect.textContent = String(s.perfect);
    this.cells.good.textContent = String(s.good);
    this.cells.bad.textContent = String(s.bad);
    this.cells.miss.textContent = String(s.miss);
    this.cells.combo.textContent = String(s.combo);
    this.cells["max-combo"].textContent = String(s.maxCombo);
    this.cells.accuracy.textContent = formatAccuracy(s.accuracy);
    this.scoreCell.textContent = this.score === null ? "—" : formatScore(this.score);
  }

  /** The game time shown now (the playback clock); null before anything arrived. */
  displayTime(nowS) {
    return this.anchor === null ? null : nowS - this.anchor;
  }

  /** Draws one animation frame. */
  draw(nowS) {
    const c = this.canvas;
    const dpr = globalThis.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(c.clientWidth * dpr));
    const height = Math.max(1, Math.round(c.clientHeight * dpr));
    if (c.width !== width || c.height !== height) {
      c.width = width;
      c.height = height;
    }
    const ctx = c.getContext("2d");
    ctx.clearRect(0, 0, width, height);
    const time = this.displayTime(nowS);
    if (time === null) return;
    const view = { ...playfield(width, height), time };
    let drawn = 0;
    for (const layer of this.layers) drawn += layer.draw(ctx, view) || 0;
    if (drawn > 0) c.dataset.drawn = String(Number(c.dataset.drawn || 0) + drawn);
  }

  #seen(time) {
    const now = performance.now() / 1000;
    // Restart the playback clock on the first frame and when times jump (new round, rewind, long gap).
    const shown = this.displayTime(now);
    if (this.anchor === null || time < (this.newest ?? time) - 2 || shown === null || time - shown > 5) {
      this.anchor = now + BUFFER_S - time;
    }
    this.newest = this.newest === null ? time : Math.max(this.newest, time);
  }
}

/** The panels of the watched room and the drawing loop. */
export class LiveView {
  constructor(container) {
    this.container = container;
    this.panels = new Map();
    // Bottom to top. The touch layer is each panel's own; more layers go below or above it.
    this.factories = [{ name: "touches", make: (panel) => panel.touches }];
    this.frame = 0;
  }

  /** Names of the layers, bottom to top. */
  get layerNames() {
    return this.factories.map((f) => f.name);
  }

  /**
   * Adds layer `name` to every panel, present and future: `make(panel)`
   * builds it; `{ below: "touches" }` puts it under that layer (a chart goes
   * under the touches), else it goes on top.
   */
  addLayer(name, make, { below } = {}) {
    const found = below === undefined ? -1 : this.factories.findIndex((f) => f.name === below);
    const at = found < 0 ? this.factories.length : found;
    this.factories.splice(at, 0, { name, make });
    for (const panel of this.panels.values()) panel.layers.splice(at, 0, make(panel));
  }

  /** Shows a panel for `user` (a player, never a monitor). */
  add(user) {
    if (user.monitor || user.id < 0 || this.panels.has(user.id)) return this.panels.get(user.id) ?? null;
    const panel = new PlayerPanel(user, this.factories);
    this.panels.set(user.id, panel);
    this.container.append(panel.root);
    return panel;
  }

  /** Removes the panel of `id`. */
  remove(id) {
    this.panels.get(id)?.root.remove();
    this.panels.delete(id);
  }

  /** Removes every panel and stops drawing. */
  clear() {
    for (const id of [...this.panels.keys()]) this.remove(id);
    this.stop();
  }

  /** The panel of player `id`. */
  get(id) {
    return this.panels.get(id) ?? null;
  }

  /** Starts the drawing loop. */
  start() {
    if (this.frame) return;
    const tick = () => {
      const now = performance.now() / 1000;
      for (const panel of this.panels.values()) panel.draw(now);
      this.frame = requestAnimationFrame(tick);
    };
    this.frame = requestAnimationFrame(tick);
  }

  /** Stops the drawing loop. */
  stop() {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
  }
}
