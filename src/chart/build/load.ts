/**
 * A chart archive's files to `(ChartInfo, Chart)` (extended.md §5.5):
 * `info.yml` -> `ChartInfo`; the chart file it names, its format from `format`
 * or detected; optional `extra.json` hit sounds; music and hit sounds decoded
 * to PCM; RPE line textures. Music or hit sounds that cannot be decoded are
 * left out with a warning (as the reference does); everything else that is
 * wrong fails the build with a {@link ChartParseError}.
 *
 * @module
 */

import { decodeAudio } from "../assets/audio_decode.ts";
import { decodeGif, decodeTexture, PixelBudget } from "../assets/images.ts";
import type { AudioClip, Chart, ChartInfo, HitSound } from "../model/types.ts";
import { detectFormat } from "../parse/detect.ts";
import { ChartParseError, invalid } from "../parse/errors.ts";
import { parseInfo } from "../parse/info.ts";
import { parseJson } from "../parse/json_read.ts";
import { Budget, type ChartLimits, DEFAULT_LIMITS } from "../parse/limits.ts";
import { parsePec } from "../parse/pec.ts";
import { parsePgr } from "../parse/pgr.ts";
import { parseRpe, type RpeResources } from "../parse/rpe.ts";

/** Files of one chart, by path relative to its `info.yml`. */
export interface ChartFiles {
  /** The file's bytes, `null` when absent; fails `too_large` over `maxBytes`. */
  read(name: string, maxBytes: number): Promise<Uint8Array | null>;
}

/** Options of {@link loadChart}. */
export interface LoadOptions {
  limits?: ChartLimits;
  /** Called between steps; throws to stop (the build's time budget). */
  check?: () => void;
  /** Warnings (undecodable music or hit sounds). */
  warn?: (message: string) => void;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function text(bytes: Uint8Array, what: string): string {
  try {
    return utf8.decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    invalid(`Cannot parse ${what}: not UTF-8 text`);
  }
}

/** Builds the model from the files of a chart. */
export async function loadChart(files: ChartFiles, o: LoadOptions = {}): Promise<{ info: ChartInfo; chart: Chart }> {
  const limits = o.limits ?? DEFAULT_LIMITS;
  const check = o.check ?? (() => {});
  const warn = o.warn ?? (() => {});
  const infoBytes = await files.read("info.yml", limits.maxInfoBytes);
  if (!infoBytes) invalid("Cannot load the chart: the archive has no info.yml");
  const info = parseInfo(text(infoBytes, "info.yml"));
  const chartBytes = await files.read(info.chart, limits.maxChartBytes);
  if (!chartBytes) {
    invalid(`Cannot load the chart: info.yml names chart file ${JSON.stringify(info.chart)}, which is missing`);
  }
  const format = info.format ?? detectFormat(chartBytes);
  info.format = format;
  check();
  const pixels = new PixelBudget(limits);
  const audio = (bytes: Uint8Array, name: string, maxSamples: number) =>
    decodeAudio(bytes, name, { maxSamples, check });
  const res: RpeResources = {
    texture: async (name) => decodeTexture(await need(files, name, limits), name, pixels, limits),
    gif: async (name) => decodeGif(await need(files, name, limits), name, pixels, limits),
    hitSound: async (name) => {
      const bytes = await files.read(name, limits.maxEntryBytes);
      return bytes ? await optionalAudio(() => audio(bytes, name, limits.maxHitSoundSamples), warn) : null;
    },
  };
  const budget = new Budget(limits);
  const source = format === "pbc" ? "" : text(chartBytes, `chart file ${JSON.stringify(info.chart)}`);
  let chart: Chart;
  if (format === "rpe") chart = await parseRpe(source, res, budget);
  else if (format === "pgr") chart = parsePgr(source, budget);
  else if (format === "pec") chart = parsePec(source, budget);
  else throw new ChartParseError("unsupported", "Cannot parse the chart: PBC (binary) charts are not supported");
  check();
  const music = await files.read(info.music, limits.maxEntryBytes);
  if (music) chart.music = await optionalAudio(() => audio(music, info.music, limits.maxMusicSamples), warn);
  else warn(`music ${JSON.stringify(info.music)} is missing`);
  check();
  chart.hitsounds.unshift(...await extraHitSounds(files, limits, warn, audio));
  return { info, chart };
}

async function need(files: ChartFiles, name: string, limits: ChartLimits): Promise<Uint8Array> {
  return await files.read(name, limits.maxEntryBytes) ?? invalid(`Cannot load ${JSON.stringify(name)}: no such file`);
}

async function optionalAudio(f: () => Promise<AudioClip>, warn: (m: string) => void): Promise<AudioClip | null> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof ChartParseError)) throw e;
    warn(e.message);
    return null;
  }
}

/** `extra.json` `hitsounds: {click|drag|flick|<custom>: file}`, in the order Click, Drag, Flick, then custom by name. */
async function extraHitSounds(
  files: ChartFiles,
  limits: ChartLimits,
  warn: (m: string) => void,
  audio: (b: Uint8Array, n: string, max: number) => Promise<AudioClip>,
): Promise<[HitSound, AudioClip][]> {
  const bytes = await files.read("extra.json", limits.maxInfoBytes);
  if (!bytes) return [];
  let map: unknown;
  try {
    map = (parseJson(text(bytes, "extra.json"), "extra.json") as { hitsounds?: unknown } | null)?.hitsounds;
  } catch (e) {
    if (!(e instanceof ChartParseError)) throw e;
    warn(e.message);
    return [];
  }
  if (typeof map !== "object" || map === null) return [];
  const entries = Object.entries(map).filter((kv): kv is [string, string] => typeof kv[1] === "string");
  if (entries.length > limits.maxHitSounds) invalid(`Cannot load extra.json: over ${limits.maxHitSounds} hit sounds`);
  const out: [HitSound, AudioClip][] = [];
  for (const [key, file] of entries) {
    const k = key.toLowerCase();
    const sound: HitSound = k === "click" ? "Click" : k === "drag" ? "Drag" : k === "flick" ? "Flick" : { Custom: key };
    const b = await files.read(file, limits.maxEntryBytes);
    if (!b) {
      warn(`hit sound ${JSON.stringify(file)} is missing`);
      continue;
    }
    const clip = await optionalAudio(() => audio(b, file, limits.maxHitSoundSamples), warn);
    if (clip) out.push([sound, clip]);
  }
  const rank = (h: HitSound) => typeof h === "string" ? ["Click", "Drag", "Flick"].indexOf(h) : 3;
  return out.sort((a, b) =>
    rank(a[0]) - rank(b[0]) ||
    (typeof a[0] === "object" && typeof b[0] === "object" ? a[0].Custom.localeCompare(b[0].Custom) : 0)
  );
}
