/**
 * Notes and GIF progress of RPE judge lines (see `rpe.ts`): note kinds
 * 1 tap, 2 hold, 3 flick, 4 drag; x from the 1350-wide canvas; `yOffset`
 * scaled by speed; alpha and `visibleTime` as an alpha curve; `size` as scale;
 * `tap.mp3`/`drag.mp3`/`flick.mp3` as the built-in sounds, other names as
 * custom sounds loaded through the resources.
 *
 * @module
 */

import { evalAnimOr } from "../../../static/chart/chart_model.js";
import { anim, defaultObject, emptyAnim, fixedAnim, kf, note, TWEEN } from "../model/build.ts";
import type {
  AnimFloat,
  AudioClip,
  BpmList,
  GifFrames,
  HitSound,
  Keyframe,
  Note,
  NoteKind,
  Texture,
} from "../model/types.ts";
import { invalid, tooLarge } from "./errors.ts";
import type { JsonObj } from "./json_read.ts";
import type { Budget } from "./limits.ts";
import { eventsAnim, numberValue, RPE_HEIGHT, RPE_WIDTH, timeOf } from "./rpe_events.ts";
import type { RpeResources } from "./rpe.ts";

const BUILTIN_SOUNDS: Readonly<Record<string, HitSound>> = {
  "tap.mp3": "Click",
  "drag.mp3": "Drag",
  "flick.mp3": "Flick",
};

function defaultSound(kind: NoteKind): HitSound {
  return kind === "Flick" ? "Flick" : kind === "Drag" ? "Drag" : "Click";
}

/** What the parts of an RPE chart are parsed with. */
export interface Ctx {
  bpm: BpmList;
  budget: Budget;
  maxTime: number;
  res: RpeResources;
  textures: Map<string, Texture>;
  sounds: Map<string, AudioClip | null>;
}

/** The notes of a line (heights from the line's speed curve, custom hit sounds loaded once). */
export async function notes(c: Ctx, line: JsonObj, height: AnimFloat): Promise<Note[]> {
  const list = line.objs("notes", true);
  c.budget.notes(list.length);
  c.budget.keyframes(list.length * 6);
  const out: Note[] = [];
  for (const n of list) {
    const time = timeOf(c.bpm, n, "startTime");
    const speed = n.num("speed", 1);
    let kind: NoteKind;
    const type = n.int("type");
    if (type === 1) kind = "Click";
    else if (type === 2) {
      const end_time = timeOf(c.bpm, n, "endTime");
      kind = { Hold: { end_time, end_height: evalAnimOr(height, end_time, 0) } };
    } else if (type === 3) kind = "Flick";
    else if (type === 4) kind = "Drag";
    else {invalid(
        `Cannot parse the chart: ${n.pathOf("type")}: unknown note type ${type} (1 tap, 2 hold, 3 flick, 4 drag)`,
      );}
    let hitsound: HitSound = defaultSound(kind);
    const name = n.has("hitsound") ? n.str("hitsound") : null;
    if (name !== null) {
      const builtin = BUILTIN_SOUNDS[name];
      if (builtin) hitsound = builtin;
      else {
        if (!c.sounds.has(name)) {
          if (c.sounds.size >= c.budget.limits.maxHitSounds) {
            tooLarge(`Cannot parse the chart: over ${c.budget.limits.maxHitSounds} custom hit sounds`);
          }
          c.sounds.set(name, await c.res.hitSound(name));
        }
        if (c.sounds.get(name)) hitsound = { Custom: name };
      }
    }
    const alpha = Math.min(n.num("alpha", 255), 255);
    const visible = n.num("visibleTime", 999999);
    const object = defaultObject();
    object.alpha = visible >= time
      ? (alpha >= 255 ? emptyAnim() : fixedAnim(alpha / 255))
      : anim([kf(0, 0, TWEEN.hold), kf(time - visible, Math.max(alpha, 0) / 255, TWEEN.hold)]);
    object.translation = {
      x: fixedAnim(n.num("positionX", 0) / (RPE_WIDTH / 2)),
      y: fixedAnim(n.num("yOffset", 0) * 2 / RPE_HEIGHT * speed),
    };
    const size = n.num("size", 1);
    object.scale = { x: fixedAnim(size), y: fixedAnim(size) };
    out.push(note(kind, time, {
      object,
      height: evalAnimOr(height, time, 0),
      speed,
      above: n.int("above", 1) === 1,
      fake: n.int("isFake", 0) !== 0,
      hitsound,
    }));
  }
  return out;
}

/** GIF progress (0..1 through the frames) over time: looping, paused and resumed by `gifEvents`. */
export function gifAnim(c: Ctx, events: JsonObj[], gif: GifFrames): AnimFloat {
  const total = gif.total_time; // ms, > 0 (see images.ts)
  const kfs: Keyframe<number>[] = [kf(0, 0, TWEEN.linear)];
  let next = 0; // ms of the next loop start
  const loopUntil = (t: number) => {
    while (t > next / 1000) {
      kfs.push(kf(next / 1000, 1, TWEEN.hold), kf(next / 1000, 0, TWEEN.linear));
      next += total;
      c.budget.keyframes(2);
    }
  };
  const evs = eventsAnim(c.bpm, events, numberValue, c.budget).keyframes;
  for (let i = 0; i + 1 < evs.length; i += 2) {
    const [s, e] = [evs[i]!, evs[i + 1]!];
    loopUntil(s.time);
    kfs.push(kf(s.time, 1 - (next - s.time * 1000) / total, TWEEN.hold), s);
    kfs.push(kf(e.time, e.value, TWEEN.linear));
    next = Math.round(e.time * 1000 + total * (1 - e.value));
  }
  // prpr loops to 2000 s; looping to the chart's end gives the same picture with far fewer keyframes.
  loopUntil(c.maxTime);
  return anim(kfs);
}
