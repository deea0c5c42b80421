/**
 * Bounds of chart parsing and building. A chart over any of them fails with a
 * `too_large` error instead of using unbounded memory or time. Real charts
 * stay far below them (a dense 3-minute RPE chart: ~2000 notes, ~100 lines,
 * ~50 000 keyframes, one PNG line texture; its music ~64 MB as PCM).
 *
 * @module
 */

import { tooLarge } from "./errors.ts";

/** Bounds of one build; every field has a default in {@link DEFAULT_LIMITS}. */
export interface ChartLimits {
  /** Largest chart file (JSON or PEC text), bytes. */
  maxChartBytes: number;
  /** Largest `info.yml` / `extra.json`, bytes. */
  maxInfoBytes: number;
  /** Judge lines. */
  maxLines: number;
  /** Notes over all lines. */
  maxNotes: number;
  /** Keyframes over all animations (events become one or two keyframes each). */
  maxKeyframes: number;
  /** BPM changes. */
  maxBpmChanges: number;
  /** Event layers of one RPE line (each becomes a link of an animation chain). */
  maxEventLayers: number;
  /** Largest side of a decoded image, pixels. */
  maxImageSide: number;
  /** Pixels of one decoded image (or GIF frame). */
  maxImagePixels: number;
  /** Pixels over all decoded images and GIF frames of a chart. */
  maxTotalPixels: number;
  /** Frames of one GIF. */
  maxGifFrames: number;
  /** Interleaved PCM samples of the music (f32 each). */
  maxMusicSamples: number;
  /** Interleaved PCM samples of one hit sound. */
  maxHitSoundSamples: number;
  /** Custom hit sounds. */
  maxHitSounds: number;
  /** Largest compressed archive entry read (music, textures), bytes. */
  maxEntryBytes: number;
  /** Bytes downloaded for one archive. */
  maxDownloadBytes: number;
  /** Wall time of one build (download, decode, parse, encode), milliseconds. */
  buildBudgetMs: number;
}

/** The defaults (see each field). */
export const DEFAULT_LIMITS: Readonly<ChartLimits> = Object.freeze({
  maxChartBytes: 32 << 20,
  maxInfoBytes: 64 << 10,
  maxLines: 10_000,
  maxNotes: 200_000,
  maxKeyframes: 4_000_000,
  maxBpmChanges: 10_000,
  maxEventLayers: 32,
  maxImageSide: 8192,
  maxImagePixels: 16 << 20,
  maxTotalPixels: 64 << 20,
  maxGifFrames: 512,
  // 64 Mi f32 = 256 MiB: 12 minutes of 44.1 kHz stereo.
  maxMusicSamples: 64 << 20,
  // 1 Mi samples: 11 s of 44.1 kHz stereo.
  maxHitSoundSamples: 1 << 20,
  maxHitSounds: 64,
  maxEntryBytes: 128 << 20,
  maxDownloadBytes: 256 << 20,
  buildBudgetMs: 120_000,
});

/** Counts keyframes and notes against the limits while a chart is parsed. */
export class Budget {
  #keyframes = 0;
  #notes = 0;
  readonly limits: ChartLimits;

  /** A budget of `limits`. */
  constructor(limits: ChartLimits = DEFAULT_LIMITS) {
    this.limits = limits;
  }

  /** Counts `n` keyframes. */
  keyframes(n: number): void {
    this.#keyframes += n;
    if (this.#keyframes > this.limits.maxKeyframes) {
      tooLarge(`Cannot parse the chart: over ${this.limits.maxKeyframes} keyframes`);
    }
  }

  /** Counts `n` notes. */
  notes(n: number): void {
    this.#notes += n;
    if (this.#notes > this.limits.maxNotes) tooLarge(`Cannot parse the chart: over ${this.limits.maxNotes} notes`);
  }
}
