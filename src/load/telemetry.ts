/**
 * Telemetry for many players from one timer: a {@link TelemetryDriver} polls
 * each playing player's {@link TelemetryPacer} when it is due and sends its
 * batches; a {@link RelayMeter} counts what monitors receive and measures
 * relay latency from the send time embedded in each batch's last item.
 *
 * @module
 */

import type { ClientEvent, PhiraClient } from "../client/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import { DueQueue } from "./due_queue.ts";
import { type PacingOptions, TelemetryPacer } from "./pacing.ts";
import { Histogram } from "./stats.ts";

/** Counts of one direction of telemetry. */
export interface TelemetryCounts {
  touchMessages: number;
  touchFrames: number;
  judgeMessages: number;
  judgeEvents: number;
}

/** Zeroed counters. */
export function zeroCounts(): TelemetryCounts {
  return { touchMessages: 0, touchFrames: 0, judgeMessages: 0, judgeEvents: 0 };
}

interface Stream {
  readonly client: PhiraClient;
  readonly pacer: TelemetryPacer;
  active: boolean;
}

/** A player's stream while it plays; `stop()` ends it (what is still queued is not sent). */
export interface StreamHandle {
  stop(): void;
}

/** Drives every playing player's telemetry from one periodic tick. */
export class TelemetryDriver {
  readonly sent: TelemetryCounts = zeroCounts();
  readonly #clock: Clock;
  readonly #pacing: PacingOptions;
  readonly #epoch: number;
  readonly #tickMs: number;
  #queue = new DueQueue<Stream>();
  #timer: TimerHandle | undefined;
  #running = false;
  #seq = 0;

  /** `epochMs` is the monotonic time that wire time 0 stands for. */
  constructor(clock: Clock, pacing: PacingOptions, epochMs: number, tickMs = 10) {
    this.#clock = clock;
    this.#pacing = pacing;
    this.#epoch = epochMs;
    this.#tickMs = tickMs;
  }

  /** Starts the tick. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule();
  }

  /** Stops the tick and forgets every stream. */
  stop(): void {
    this.#running = false;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue.clear();
  }

  /** Starts streaming for `client` now (call when it sees `ChangeState(Playing)`). */
  play(client: PhiraClient): StreamHandle {
    // Golden-ratio phases spread players evenly over the send periods.
    const phase = (this.#seq++ * 0.6180339887) % 1;
    const stream: Stream = {
      client,
      pacer: new TelemetryPacer(this.#pacing, this.#clock.monotonic(), this.#epoch, phase),
      active: true,
    };
    this.#queue.push(stream.pacer.nextDue(), stream);
    return { stop: () => void (stream.active = false) };
  }

  #schedule(): void {
    if (!this.#running) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#tick();
      this.#schedule();
    }, this.#tickMs);
  }

  #tick(): void {
    const now = this.#clock.monotonic();
    const sent = this.sent;
    for (let s = this.#queue.popDue(now); s; s = this.#queue.popDue(now)) {
      if (!s.active || s.client.isClosed) continue;
      const out = s.pacer.poll(now);
      if (out.touches) {
        s.client.touches(out.touches);
        sent.touchMessages++;
        sent.touchFrames += out.touches.length;
      }
      if (out.judges) {
        s.client.judges(out.judges);
        sent.judgeMessages++;
        sent.judgeEvents += out.judges.length;
      }
      this.#queue.push(s.pacer.nextDue(), s);
    }
  }
}

/** Counts relayed telemetry at monitors and measures relay latency. */
export class RelayMeter {
  readonly received: TelemetryCounts = zeroCounts();
  readonly touchLatency = new Histogram();
  readonly judgeLatency = new Histogram();
  readonly #clock: Clock;
  readonly #epoch: number;
  /** Latencies are recorded only while this is true (the steady window). */
  recording = false;

  constructor(clock: Clock, epochMs: number) {
    this.#clock = clock;
    this.#epoch = epochMs;
  }

  /** Feed every event of a monitor here. */
  onEvent(event: ClientEvent): void {
    if (event.type === "Touches") {
      const n = event.frames.length;
      this.received.touchMessages++;
      this.received.touchFrames += n;
      if (this.recording && n) this.touchLatency.record(this.#latency(event.frames[n - 1]!.time));
    } else if (event.type === "Judges") {
      const n = event.judges.length;
      this.received.judgeMessages++;
      this.received.judgeEvents += n;
      if (this.recording && n) this.judgeLatency.record(this.#latency(event.judges[n - 1]!.time));
    }
  }

  #latency(wireSeconds: number): number {
    return this.#clock.monotonic() - this.#epoch - wireSeconds * 1000;
  }
}

/** `a - b`, field by field. */
export function diffCounts(a: TelemetryCounts, b: TelemetryCounts): TelemetryCounts {
  return {
    touchMessages: a.touchMessages - b.touchMessages,
    touchFrames: a.touchFrames - b.touchFrames,
    judgeMessages: a.judgeMessages - b.judgeMessages,
    judgeEvents: a.judgeEvents - b.judgeEvents,
  };
}

/** `f` applied to every field. */
export function mapCounts(c: TelemetryCounts, f: (n: number) => number): TelemetryCounts {
  const out = zeroCounts();
  for (const k of Object.keys(out) as (keyof TelemetryCounts)[]) out[k] = f(c[k]);
  return out;
}
