/**
 * Telemetry pacing of one simulated player, following the official client
 * (protocol.md §3.1): each moving finger yields a touch point at 20 Hz; touch
 * frames are sent when more than 1 s passed since the last send or more than
 * 20 frames are queued (one empty frame when nothing is queued); judge events
 * are sent when more than 10 are queued or the oldest is more than 0.6 s old.
 *
 * The pacer is pure: it is polled with the current time and says when it next
 * has something to send. The last item of every batch carries the send time in
 * its `time` field (seconds since the run's epoch, as f32) so a monitor can
 * measure the relay latency.
 *
 * @module
 */

import type { JudgeEvent, TouchFrame } from "../protocol/mod.ts";

/** Rates and batching rules (defaults: the official client's). */
export interface PacingOptions {
  /** Fingers moving all the time (0 = touch frames only when due, empty). */
  readonly fingers: number;
  /** Judge events per second. */
  readonly notesPerSec: number;
  /** Touch points per finger per second (official: 20). */
  readonly touchHz?: number;
  /** Send touches when this much time passed since the last send, ms (official: 1000). */
  readonly touchIntervalMs?: number;
  /** Send touches when more than this many frames are queued (official: 20). */
  readonly touchMaxFrames?: number;
  /** Send judges when more than this many are queued (official: 10). */
  readonly judgeMaxQueued?: number;
  /** Send judges when the oldest is older than this, ms (official: 600). */
  readonly judgeMaxAgeMs?: number;
}

/** What a poll yields: a batch of each kind, or null. */
export interface TelemetryOut {
  readonly touches: TouchFrame[] | null;
  readonly judges: JudgeEvent[] | null;
}

/** Seconds since `epochMs`, rounded to f32 like the wire field. */
export function wireTime(ms: number, epochMs: number): number {
  return Math.fround((ms - epochMs) / 1000);
}

/**
 * One player's touch and judge stream. Only counters are kept between
 * polls; the items of a batch are built when it is sent, so nothing a player
 * "queues" lives long enough to leave the young generation of the
 * generator's heap (thousands of players would otherwise promote megabytes
 * per second and stall it in garbage collection).
 */
export class TelemetryPacer {
  readonly #epoch: number;
  readonly #fingers: number;
  readonly #framePeriod: number;
  readonly #notePeriod: number;
  readonly #touchInterval: number;
  readonly #touchMax: number;
  readonly #judgeMax: number;
  readonly #judgeAge: number;
  /** Time of frame 0 and note 0; frame k happens at `#frame0 + k × period`. */
  readonly #frame0: number;
  readonly #note0: number;
  /** Sequence of the first frame/note not generated yet, and of the first one queued. */
  #frameNext = 0;
  #frameQueued = 0;
  #noteNext = 0;
  #noteQueued = 0;
  #lastTouchSend: number;

  /**
   * Starts streaming at `startMs`; `phase` in 0..1 shifts the first frame and
   * note within one period so players do not send in lockstep.
   */
  constructor(options: PacingOptions, startMs: number, epochMs: number, phase = 0) {
    this.#epoch = epochMs;
    this.#fingers = options.fingers;
    this.#framePeriod = 1000 / (options.touchHz ?? 20);
    this.#notePeriod = options.notesPerSec > 0 ? 1000 / options.notesPerSec : Infinity;
    this.#touchInterval = options.touchIntervalMs ?? 1000;
    this.#touchMax = options.touchMaxFrames ?? 20;
    this.#judgeMax = options.judgeMaxQueued ?? 10;
    this.#judgeAge = options.judgeMaxAgeMs ?? 600;
    this.#frame0 = this.#fingers > 0 ? startMs + phase * this.#framePeriod : Infinity;
    this.#note0 = Number.isFinite(this.#notePeriod) ? startMs + phase * this.#notePeriod : Infinity;
    // The touch timer starts from a virtual send one interval before, shifted by phase.
    this.#lastTouchSend = startMs - this.#touchInterval + phase * this.#touchInterval;
  }

  #frameAt(k: number): number {
    // (Infinity when no finger moves: 0 × Infinity would be NaN.)
    return this.#frame0 === Infinity ? Infinity : this.#frame0 + k * this.#framePeriod;
  }

  #noteAt(k: number): number {
    return this.#note0 === Infinity ? Infinity : this.#note0 + k * this.#notePeriod;
  }

  /** Frames and judge events generated but not sent yet. */
  get queued(): { frames: number; judges: number } {
    return { frames: this.#frameNext - this.#frameQueued, judges: this.#noteNext - this.#noteQueued };
  }

  /** The earliest time at which {@link poll} will send something. */
  nextDue(): number {
    // Touches: time rule (strictly more than the interval), or the (max+1)-th frame queued.
    const byCount = this.#frameAt(this.#frameQueued + this.#touchMax);
    const touchDue = Math.min(this.#lastTouchSend + this.#touchInterval + 1, byCount);
    // Judges: the oldest queued (or next) note gets too old, or the (max+1)-th is queued.
    const byNotes = this.#noteAt(this.#noteQueued + this.#judgeMax);
    const judgeDue = Math.min(this.#noteAt(this.#noteQueued) + this.#judgeAge + 1, byNotes);
    return Math.min(touchDue, judgeDue);
  }

  /** Generates what happened up to `now` and returns the batches the client would send now. */
  poll(now: number): TelemetryOut {
    while (this.#frameAt(this.#frameNext) <= now) this.#frameNext++;
    while (this.#noteAt(this.#noteNext) <= now) this.#noteNext++;
    let touches: TouchFrame[] | null = null;
    const frames = this.#frameNext - this.#frameQueued;
    if (now - this.#lastTouchSend > this.#touchInterval || frames > this.#touchMax) {
      touches = frames ? this.#buildFrames(this.#frameQueued, this.#frameNext) : [{ time: 0, points: [] }];
      this.#frameQueued = this.#frameNext;
      this.#lastTouchSend = now;
      touches[touches.length - 1]!.time = wireTime(now, this.#epoch);
    }
    let judges: JudgeEvent[] | null = null;
    const notes = this.#noteNext - this.#noteQueued;
    if (notes > this.#judgeMax || (notes > 0 && now - this.#noteAt(this.#noteQueued) > this.#judgeAge)) {
      judges = this.#buildJudges(this.#noteQueued, this.#noteNext);
      this.#noteQueued = this.#noteNext;
      judges[notes - 1]!.time = wireTime(now, this.#epoch);
    }
    return { touches, judges };
  }

  #buildFrames(from: number, to: number): TouchFrame[] {
    const out: TouchFrame[] = [];
    for (let k = from; k < to; k++) {
      const points: TouchFrame["points"] = [];
      for (let f = 0; f < this.#fingers; f++) {
        // A slow sweep across the screen; x and y stay in the game's -1..1 range.
        points.push([f, { x: ((k * 3 + f * 40) % 200) / 100 - 1, y: ((k * 7 + f * 25) % 100) / 100 - 0.5 }]);
      }
      out.push({ time: wireTime(this.#frameAt(k), this.#epoch), points });
    }
    return out;
  }

  #buildJudges(from: number, to: number): JudgeEvent[] {
    const out: JudgeEvent[] = [];
    for (let k = from; k < to; k++) {
      out.push({
        time: wireTime(this.#noteAt(k), this.#epoch),
        line_id: k % 4,
        note_id: k,
        judgement: k % 17 === 0 ? "Good" : "Perfect",
      });
    }
    return out;
  }
}
