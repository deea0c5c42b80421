/**
 * RPE (re:PhiEdit) chart JSON (`META`, `BPMList`, `judgeLineList`) to the
 * model, with prpr's conversions (see `rpe_events.ts`): positions from the
 * 1350 × 900 canvas to -1..1, alpha 0..255 -> 0..1, rotation negated, line
 * textures other than `line.png` loaded as images (GIFs with `gifEvents` as
 * frame lists), custom note hit sounds loaded as audio. Resources come from a
 * {@link RpeResources} so parsing stays free of I/O.
 *
 * @module
 */

import { bpmList, defaultObject, emptyAnim, judgeLine } from "../model/build.ts";
import type {
  AudioClip,
  BpmList,
  Chart,
  GifFrames,
  HitSound,
  JudgeLine,
  JudgeLineKind,
  Texture,
  UIElement,
} from "../model/types.ts";
import { UI_ELEMENTS } from "../model/types.ts";
import { invalid, tooLarge } from "./errors.ts";
import { finishChart } from "./finish.ts";
import { type Ctx, gifAnim, notes } from "./rpe_notes.ts";
import { fail, JsonObj, parseJson } from "./json_read.ts";
import { Budget } from "./limits.ts";
import {
  beats,
  colorValue,
  ctrlAnim,
  eventsAnim,
  heightFromSpeed,
  layeredAnim,
  numberValue,
  RPE_HEIGHT,
  RPE_WIDTH,
  stringValue,
  timeOf,
} from "./rpe_events.ts";

/** Files an RPE chart refers to, resolved relative to the chart. */
export interface RpeResources {
  /** A still image as a PNG texture. */
  texture(name: string): Promise<Texture>;
  /** An animated GIF as frames. */
  gif(name: string): Promise<GifFrames>;
  /** A custom hit sound, or `null` when the file is missing (the note then keeps its kind's sound). */
  hitSound(name: string): Promise<AudioClip | null>;
}

/** Resources of a chart without files: every texture or GIF is an error, hit sounds are missing. */
export const NO_RESOURCES: RpeResources = {
  texture: (name) => Promise.reject(invalid(`Cannot load line texture ${JSON.stringify(name)}: no such file`)),
  gif: (name) => Promise.reject(invalid(`Cannot load line texture ${JSON.stringify(name)}: no such file`)),
  hitSound: () => Promise.resolve(null),
};

async function lineKind(c: Ctx, line: JsonObj, ext: JsonObj | null): Promise<JudgeLineKind> {
  const tex = line.str("Texture", "line.png");
  if (tex === "line.png") {
    if (ext?.has("paintEvents")) {
      return { Paint: eventsAnim(c.bpm, ext.objs("paintEvents"), numberValue, c.budget, -1) };
    }
    if (ext?.has("textEvents")) return { Text: eventsAnim(c.bpm, ext.objs("textEvents"), stringValue, c.budget, "") };
    return "Normal";
  }
  if (ext?.has("gifEvents")) {
    const gif = await c.res.gif(tex);
    return { TextureGif: [gifAnim(c, ext.objs("gifEvents"), gif), gif, tex] };
  }
  let t = c.textures.get(tex);
  if (!t) {
    t = await c.res.texture(tex);
    c.textures.set(tex, t);
  }
  return { Texture: [t, tex] };
}

function uiElement(line: JsonObj): UIElement | null {
  if (!line.has("attachUI")) return null;
  const v = line.str("attachUI");
  if (!(UI_ELEMENTS as readonly string[]).includes(v)) {
    fail(line.pathOf("attachUI"), `one of ${UI_ELEMENTS.join(", ")}`, v);
  }
  return v as UIElement;
}

async function parseLine(c: Ctx, line: JsonObj): Promise<JudgeLine> {
  const layers = line.arr("eventLayers", true).flatMap((v, i) =>
    v === null ? [] : [new JsonObj(v, `${line.pathOf("eventLayers")}[${i}]`)]
  );
  if (layers.length > c.budget.limits.maxEventLayers) {
    tooLarge(
      `Cannot parse the chart: ${line.path} has ${layers.length} event layers, over ${c.budget.limits.maxEventLayers}`,
    );
  }
  const ext = line.obj("extended");
  const height = heightFromSpeed(c.bpm, layers, c.maxTime, c.budget);
  const tex = line.str("Texture", "line.png");
  const object = defaultObject();
  object.alpha = layeredAnim(c.bpm, layers, "alphaEvents", 1 / 255, c.budget);
  object.rotation = layeredAnim(c.bpm, layers, "rotateEvents", -1, c.budget);
  object.translation = {
    x: layeredAnim(c.bpm, layers, "moveXEvents", 2 / RPE_WIDTH, c.budget),
    y: layeredAnim(c.bpm, layers, "moveYEvents", 2 / RPE_HEIGHT, c.budget),
  };
  const attach = uiElement(line);
  if (ext) {
    const factor = tex === "line.png" ? 1 : 2 / RPE_WIDTH;
    // prpr: a plain line's texture is twice as wide as its scale says.
    const half = tex === "line.png" && (ext.arr("textEvents", true).length === 0) && attach === null ? 0.5 : 1;
    const scaled = (key: string, f: number) => {
      const a = eventsAnim(c.bpm, ext.objs(key, true), numberValue, c.budget);
      for (const k of a.keyframes) k.value *= f;
      return ext.has(key) ? a : emptyAnim();
    };
    object.scale = { x: scaled("scaleXEvents", factor * half), y: scaled("scaleYEvents", factor) };
  }
  const fatherRaw = line.has("father") ? line.int("father") : -1;
  return judgeLine({
    object,
    ctrl_obj: {
      alpha: ctrlAnim(line.objs("alphaControl", true), "alpha", c.budget),
      size: ctrlAnim(line.objs("sizeControl", true), "size", c.budget),
      pos: ctrlAnim(line.objs("posControl", true), "pos", c.budget),
      y: ctrlAnim(line.objs("yControl", true), "y", c.budget),
    },
    kind: await lineKind(c, line, ext),
    height,
    incline: ext?.has("inclineEvents")
      ? eventsAnim(c.bpm, ext.objs("inclineEvents"), numberValue, c.budget, 0)
      : emptyAnim(),
    color: ext?.has("colorEvents")
      ? eventsAnim(c.bpm, ext.objs("colorEvents"), colorValue, c.budget, { r: 1, g: 1, b: 1, a: 1 })
      : emptyAnim(),
    notes: await notes(c, line, height),
    parent: fatherRaw < 0 ? null : fatherRaw,
    z_index: line.i32("zOrder", 0),
    show_below: line.int("isCover", 1) !== 1,
    attach_ui: attach,
  });
}

/** The end of the chart: the last note end or event end (moves, alpha, rotation, scale, text) plus one second. */
function endTime(bpm: BpmList, lines: JsonObj[]): number {
  let max = 0;
  const ends = (list: JsonObj[]) => {
    for (const e of list) max = Math.max(max, timeOf(bpm, e, "endTime"));
  };
  for (const l of lines) {
    ends(l.objs("notes", true));
    for (const v of l.arr("eventLayers", true)) {
      if (v === null) continue;
      const layer = new JsonObj(v, l.pathOf("eventLayers"));
      for (const k of ["alphaEvents", "moveXEvents", "moveYEvents", "rotateEvents"]) ends(layer.objs(k, true));
    }
    const ext = l.obj("extended");
    if (ext) { for (const k of ["scaleXEvents", "scaleYEvents", "textEvents"]) ends(ext.objs(k, true)); }
  }
  return max + 1;
}

/** Parses RPE chart JSON text. */
export async function parseRpe(text: string, res: RpeResources = NO_RESOURCES, budget = new Budget()): Promise<Chart> {
  const root = new JsonObj(parseJson(text, "the chart"), "");
  const meta = root.obj("META") ?? invalid("Cannot parse the chart: META is missing");
  const bpms = root.objs("BPMList");
  if (bpms.length > budget.limits.maxBpmChanges) {
    tooLarge(`Cannot parse the chart: ${bpms.length} BPM changes, over ${budget.limits.maxBpmChanges}`);
  }
  const changes = bpms.map((b) => {
    const v = b.num("bpm");
    if (!(v > 0)) invalid(`Cannot parse the chart: ${b.pathOf("bpm")}: BPM ${v} is not positive`);
    return [beats(b, "startTime"), v] as [number, number];
  }).sort((a, b) => a[0] - b[0]);
  const bpm = bpmList(changes);
  const lines = root.objs("judgeLineList");
  if (lines.length > budget.limits.maxLines) {
    tooLarge(`Cannot parse the chart: ${lines.length} judge lines, over ${budget.limits.maxLines}`);
  }
  const c: Ctx = { bpm, budget, maxTime: endTime(bpm, lines), res, textures: new Map(), sounds: new Map() };
  const out: JudgeLine[] = [];
  for (const l of lines) out.push(await parseLine(c, l));
  checkParents(out);
  const hitsounds: [HitSound, AudioClip][] = [...c.sounds].flatMap(([name, clip]) =>
    clip ? [[{ Custom: name }, clip] as [HitSound, AudioClip]] : []
  );
  const chart: Chart = {
    music: null,
    offset: meta.num("offset", 0) / 1000,
    lines: out,
    bpm_list: bpm,
    settings: { pe_alpha_extension: false, hold_partial_cover: false },
    hitsounds,
  };
  finishChart(chart);
  return chart;
}

/** Parents outside the chart are dropped (drawers would index past the end); a parent cycle is an error. */
function checkParents(lines: JudgeLine[]): void {
  for (const l of lines) if (l.parent !== null && l.parent >= lines.length) l.parent = null;
  lines.forEach((_, i) => {
    const seen = new Set([i]);
    for (let p = lines[i]!.parent; p !== null; p = lines[p]!.parent) {
      if (seen.has(p)) invalid(`Cannot parse the chart: judge line ${i} is its own ancestor (through line ${p})`);
      seen.add(p);
    }
  });
}
