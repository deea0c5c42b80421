/**
 * Silent audio files of a known exact duration in the four formats the
 * duration prober reads (spec 3 §3.1 rule 5: MP3, FLAC, WAV, OGG). Each
 * format's layout is documented in its writer module and in `README.md`.
 *
 * @module
 */

import { fnv1a32 } from "./dev_accounts.ts";
import { encodeFlac } from "./dev_audio_flac.ts";
import { encodeMp3, MP3_FRAME_SAMPLES } from "./dev_audio_mp3.ts";
import { encodeOggVorbis } from "./dev_audio_ogg.ts";
import { encodeWav } from "./dev_audio_wav.ts";

/** Audio formats of development chart archives. */
export type AudioFormat = "wav" | "flac" | "ogg" | "mp3";

/** All formats, in the order `chart id % 4` selects them. */
export const AUDIO_FORMATS: readonly AudioFormat[] = ["wav", "flac", "ogg", "mp3"] as const;

/** What to generate. */
export interface AudioSpec {
  format: AudioFormat;
  /** Requested length; MP3 rounds up to whole 1152-sample frames. */
  durationSecs: number;
  /** Default: 22050 for WAV (keeps archives small), 44100 otherwise. MP3 allows 32000, 44100, 48000. */
  sampleRate?: number;
  /** Default: 1 for WAV, 2 otherwise. */
  channels?: 1 | 2;
  /** MP3 only: write the `Info` frame with the frame count (default true). */
  xing?: boolean;
}

/** A generated file and its exact properties. */
export interface GeneratedAudio {
  format: AudioFormat;
  bytes: Uint8Array;
  sampleRate: number;
  channels: number;
  /** Samples per channel actually encoded. */
  totalSamples: number;
  /** Exact duration of the file: `totalSamples / sampleRate`. */
  durationSecs: number;
}

/** Sample rate and channel count used when a spec leaves them out. */
export function audioDefaults(format: AudioFormat): { sampleRate: number; channels: 1 | 2 } {
  return format === "wav" ? { sampleRate: 22050, channels: 1 } : { sampleRate: 44100, channels: 2 };
}

/** Samples per channel a spec encodes (MP3 rounds up to whole frames). */
export function encodedSamples(spec: AudioSpec): number {
  const rate = spec.sampleRate ?? audioDefaults(spec.format).sampleRate;
  const samples = Math.max(1, Math.round(spec.durationSecs * rate));
  return spec.format === "mp3" ? Math.ceil(samples / MP3_FRAME_SAMPLES) * MP3_FRAME_SAMPLES : samples;
}

/** Exact duration in seconds of the file {@link generateAudio} makes for `spec`. */
export function encodedDurationSecs(spec: AudioSpec): number {
  return encodedSamples(spec) / (spec.sampleRate ?? audioDefaults(spec.format).sampleRate);
}

/** Generates a silent file; `title` goes into the format's tag. */
export function generateAudio(spec: AudioSpec, title = "Chorus dev audio"): GeneratedAudio {
  if (!(spec.durationSecs > 0) || !Number.isFinite(spec.durationSecs)) {
    throw new RangeError(`Cannot generate audio: duration ${spec.durationSecs} s is not positive`);
  }
  const d = audioDefaults(spec.format);
  const sampleRate = spec.sampleRate ?? d.sampleRate;
  const channels = spec.channels ?? d.channels;
  if (!Number.isInteger(sampleRate) || sampleRate < 1 || sampleRate > 655350) {
    throw new RangeError(`Cannot generate audio: sample rate ${sampleRate} is out of range`);
  }
  const totalSamples = encodedSamples(spec);
  const p = { sampleRate, channels, totalSamples, title };
  let bytes: Uint8Array;
  switch (spec.format) {
    case "wav":
      bytes = encodeWav(p);
      break;
    case "flac":
      bytes = encodeFlac(p);
      break;
    case "ogg":
      bytes = encodeOggVorbis(p, fnv1a32(title));
      break;
    case "mp3":
      bytes = encodeMp3({ ...p, xing: spec.xing ?? true });
      break;
  }
  return { format: spec.format, bytes, sampleRate, channels, totalSamples, durationSecs: totalSamples / sampleRate };
}
