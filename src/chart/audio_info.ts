/**
 * What a format probe reports, and the sanity bound every probe applies.
 *
 * @module
 */

import { ChartProbeError } from "./errors.ts";

/** Audio formats the prober reads (spec 3 §3.1 rule 5). */
export type ChartAudioFormat = "mp3" | "flac" | "wav" | "ogg";

/** Result of a format probe. */
export interface AudioInfo {
  format: ChartAudioFormat;
  /** Playing time in seconds. */
  durationSecs: number;
  /** Samples per second per channel as the stream declares it. */
  sampleRate: number;
}

/** Longest duration accepted (24 h); anything longer is treated as a broken header. */
export const MAX_AUDIO_DURATION_SECS = 86_400;

/** Checks a computed duration and builds the result. */
export function audioInfo(format: ChartAudioFormat, durationSecs: number, sampleRate: number): AudioInfo {
  if (!Number.isFinite(durationSecs) || durationSecs <= 0) {
    throw new ChartProbeError("bad_audio", `Cannot read the ${format} duration: computed ${durationSecs} s`);
  }
  if (durationSecs > MAX_AUDIO_DURATION_SECS) {
    throw new ChartProbeError(
      "too_large",
      `Cannot accept the ${format} duration: ${durationSecs} s is over ${MAX_AUDIO_DURATION_SECS} s`,
    );
  }
  return { format, durationSecs, sampleRate };
}
