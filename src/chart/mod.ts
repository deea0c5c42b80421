/**
 * Chart audio duration for the playing deadline (spec 3 §3.1 rules 1 and 5):
 * probes MP3, FLAC, WAV and Ogg (Vorbis, Opus) music inside Phira chart
 * archives with ranged downloads, never the whole archive unless the server
 * ignores `Range`. Failures are {@link ChartProbeError}s; callers then use
 * {@link FALLBACK_CHART_DURATION_SECS}. See `README.md` for the method.
 *
 * @module
 */

export { ChartProbeError, type ChartProbeErrorKind } from "./errors.ts";
export { type AudioInfo, type ChartAudioFormat, MAX_AUDIO_DURATION_SECS } from "./audio_info.ts";
export { ByteView, MissingBytes } from "./bytes.ts";
export { AUDIO_EXTENSIONS, probeAudio } from "./audio.ts";
export { probeWav } from "./wav.ts";
export { probeFlac } from "./flac.ts";
export { OGG_TAIL_BYTES, probeOgg } from "./ogg.ts";
export { type Mp3FrameHeader, parseFrameHeader, probeMp3 } from "./mp3.ts";
export {
  type ChartAudio,
  DEFAULT_MAX_DOWNLOAD_BYTES,
  DEFAULT_MAX_ENTRY_BYTES,
  DEFAULT_PROBE_BUDGET_MS,
  FALLBACK_CHART_DURATION_SECS,
  probeChartDuration,
  type ProbeOptions,
} from "./probe.ts";
export { resolveChartDuration, type ResolvedChartDuration, type ResolveOptions } from "./resolve.ts";
export { ChartDurationCache, type ChartDurationCacheOptions } from "./cache.ts";
