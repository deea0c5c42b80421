/**
 * The telemetry messages the telemetry benches store (issue 15): one
 * `Touches` of 10 frames of 2 fingers (half a second at 20 Hz) and one
 * `Judges` of 10 items, as the official client sends them.
 *
 * @module
 */

import type { JudgeEvent, TouchFrame } from "../../protocol/mod.ts";

const f32 = (x: number) => Math.fround(x);

/** One touch message: 10 frames of 2 fingers. */
export const SAMPLE_FRAMES: TouchFrame[] = Array.from({ length: 10 }, (_, k) => ({
  time: f32(12.34 + k / 20),
  points: [0, 1].map((f) => [f, { x: f32(((k * 3 + f * 40) % 200) / 100 - 1), y: f32((k * 7 % 100) / 100 - 0.5) }]),
})) as TouchFrame[];

/** One judge message of 10 items. */
export const SAMPLE_JUDGES: JudgeEvent[] = Array.from({ length: 10 }, (_, k) => ({
  time: f32(12.34 + k / 16),
  line_id: k % 4,
  note_id: 1000 + k,
  judgement: k % 17 === 0 ? "Good" : "Perfect",
}));
