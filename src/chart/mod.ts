/**
 * Chart archives: the audio duration for the playing deadline (spec 3 §3.1 rules 1 and 5), and the chart model
 * served as `/chart/{id}` (issue 19: parsing, bincode, JSON, the cached service). The duration prober
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

// Chart model, parsing and serving (issue 19; extended.md §5.5). See `README.md` and docs/chart.md.
export type * from "./model/types.ts";
export { CHART_FORMATS, UI_ELEMENTS } from "./model/types.ts";
export { defaultChartInfo } from "./model/build.ts";
export { TEST_CHART_SECONDS, testChart } from "./model/test_chart.ts";
export { ChartParseError, type ChartParseErrorKind } from "./parse/errors.ts";
export { type ChartLimits, DEFAULT_LIMITS } from "./parse/limits.ts";
export { detectFormat } from "./parse/detect.ts";
export { normalizeDateTime, parseInfo } from "./parse/info.ts";
export { parsePgr } from "./parse/pgr.ts";
export { NO_RESOURCES, parseRpe, type RpeResources } from "./parse/rpe.ts";
export { parsePec } from "./parse/pec.ts";
export { decodeAudio, type DecodeAudioOptions } from "./assets/audio_decode.ts";
export { decodeGif, decodeTexture, PixelBudget } from "./assets/images.ts";
export { encodeChart, encodeChartTo, writeChart, writeChartInfo } from "./bincode/encode.ts";
export { decodeChart, MAX_ANIM_CHAIN, readChart, readChartInfo } from "./bincode/decode.ts";
export { BincodeError, BincodeReader } from "./bincode/reader.ts";
export { BincodeWriter, type ByteSink } from "./bincode/writer.ts";
export { type ChartFiles, loadChart, type LoadOptions } from "./build/load.ts";
export { archiveFiles } from "./build/archive_files.ts";
export { chartJson, f32Number } from "./build/json.ts";
export { CACHE_FORMAT_VERSION, type CacheEntry, DiskCache } from "./build/disk_cache.ts";
export {
  ChartHttpError,
  ChartService,
  type ChartServiceOptions,
  DEFAULT_MAX_CACHE_BYTES,
  DEFAULT_MAX_CONCURRENT_BUILDS,
  DEFAULT_MAX_QUEUED_BUILDS,
  errorResponse,
} from "./build/service.ts";
export {
  type ChartRequestHandler,
  type ChartRouteHandler,
  lazyChartHandler,
  type LazyChartOptions,
} from "./build/lazy.ts";
