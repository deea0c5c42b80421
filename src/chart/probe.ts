/**
 * Chart audio duration by ranged download (spec 3 §3.1 rules 1 and 5): read
 * the archive's central directory from its end, the music entry's name from
 * `info.yml`, then only the bytes of the music entry that the format probe
 * asks for. Every failure is a {@link ChartProbeError}; the caller then uses
 * the fallback duration ({@link FALLBACK_CHART_DURATION_SECS}).
 *
 * @module
 */

import { type Clock, SystemClock } from "../util/clock.ts";
import type { Upstream } from "../upstream/mod.ts";
import { ArchiveReader } from "./archive_reader.ts";
import { probeAudio } from "./audio.ts";
import type { ChartAudioFormat } from "./audio_info.ts";
import { ByteView, MissingBytes } from "./bytes.ts";
import { readDirectory } from "./directory.ts";
import { type EntryLimits, type EntrySource, openEntry } from "./entry_source.ts";
import { ChartProbeError } from "./errors.ts";
import { findInfoEntry, findNamed, firstAudioEntry, MAX_INFO_BYTES, musicFromInfo } from "./music.ts";
import type { ZipEntry } from "./zip.ts";

/** Duration used when the chart's audio cannot be probed (spec 3 §3.1 rule 1). */
export const FALLBACK_CHART_DURATION_SECS = 10000;
/** Default time budget of one probe, all requests included. */
export const DEFAULT_PROBE_BUDGET_MS = 15_000;
/** Default cap of bytes received by one probe (a server ignoring Range sends whole archives). */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 32 << 20;
/** Default cap of the music entry's uncompressed size. */
export const DEFAULT_MAX_ENTRY_BYTES = 256 << 20;
/** Probe reruns after loading missing bytes before giving up. */
const MAX_PROBE_STEPS = 32;

/** Options of {@link probeChartDuration}. */
export interface ProbeOptions {
  /** Time for the whole probe in milliseconds (default {@link DEFAULT_PROBE_BUDGET_MS}). */
  budgetMs?: number;
  /** Aborts the probe (it rejects with kind `aborted`). */
  signal?: AbortSignal;
  /** Time source for the budget (default {@link SystemClock}); pass the one the `Upstream` uses. */
  clock?: Clock;
  /** Cap of bytes received (default {@link DEFAULT_MAX_DOWNLOAD_BYTES}). */
  maxDownloadBytes?: number;
  /** Cap of the music entry's uncompressed size (default {@link DEFAULT_MAX_ENTRY_BYTES}). */
  maxEntryBytes?: number;
}

/** What a probe found. */
export interface ChartAudio {
  /** Playing time of the music in seconds. */
  durationSecs: number;
  format: ChartAudioFormat;
  /** Zip entry name of the music. */
  entry: string;
  /** Sample rate the stream declares. */
  sampleRate: number;
  /** Whether the music entry is deflated (else stored). */
  compressed: boolean;
  /** Body bytes received from the file server. */
  bytesDownloaded: number;
  /** HTTP requests made. */
  requests: number;
}

/** Reads the duration of the music in the chart archive at `fileUrl` with ranged requests. */
export async function probeChartDuration(
  upstream: Upstream,
  fileUrl: string,
  options: ProbeOptions = {},
): Promise<ChartAudio> {
  const clock = options.clock ?? new SystemClock();
  const budgetMs = options.budgetMs ?? DEFAULT_PROBE_BUDGET_MS;
  const reader = await ArchiveReader.open({
    upstream,
    url: fileUrl,
    clock,
    budgetMs,
    deadline: clock.monotonic() + budgetMs,
    signal: options.signal,
    maxDownloadBytes: options.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
  });
  const limits: EntryLimits = { maxEntryBytes: options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES };
  const entries = await readDirectory(reader);
  const music = await findMusic(reader, entries);
  const source = await openEntry(reader, music, limits);
  const view = new ByteView(source.size);
  for (let step = 0;; step++) {
    try {
      const info = probeAudio(view, music.name);
      return {
        durationSecs: info.durationSecs,
        format: info.format,
        entry: music.name,
        sampleRate: info.sampleRate,
        compressed: music.method !== 0,
        bytesDownloaded: reader.bytesDownloaded,
        requests: reader.requests,
      };
    } catch (e) {
      if (!(e instanceof MissingBytes)) throw e;
      if (step >= MAX_PROBE_STEPS) {
        throw new ChartProbeError("bad_audio", `Cannot probe ${JSON.stringify(music.name)}: too many reads`);
      }
      await load(source, view, e);
    }
  }
}

async function load(source: EntrySource, view: ByteView, need: MissingBytes): Promise<void> {
  await source.fill(view, need.start, need.length);
  if (!view.has(need.start, need.length)) {
    throw new ChartProbeError("corrupt_zip", `Cannot read bytes ${need.start}+${need.length} of the music entry`);
  }
}

/** The music entry: named by `info.yml` when it can be read, else the first audio file. */
async function findMusic(reader: ArchiveReader, entries: ZipEntry[]): Promise<ZipEntry> {
  const info = findInfoEntry(entries);
  if (info && info.uncompressedSize <= MAX_INFO_BYTES && info.compressedSize <= MAX_INFO_BYTES) {
    const text = await readText(reader, info);
    const name = text === null ? null : musicFromInfo(text);
    const named = name === null ? null : findNamed(entries, info, name);
    if (named && !named.name.endsWith("/")) return named;
  }
  const any = firstAudioEntry(entries);
  if (!any) throw new ChartProbeError("no_audio", "Cannot probe the chart archive: no music entry and no audio file");
  return any;
}

/** The text of a small entry, or `null` when it cannot be read as such (the caller falls back). */
async function readText(reader: ArchiveReader, e: ZipEntry): Promise<string | null> {
  try {
    const source = await openEntry(reader, e, { maxEntryBytes: MAX_INFO_BYTES });
    if (source.size === 0) return "";
    const view = new ByteView(source.size);
    await load(source, view, new MissingBytes(0, source.size));
    return new TextDecoder().decode(view.upTo(0, source.size));
  } catch (err) {
    // A broken info.yml is not fatal: the music may still be found by extension. Transport failures are.
    if (err instanceof ChartProbeError && (err.kind === "corrupt_zip" || err.kind === "unsupported")) return null;
    throw err;
  }
}
