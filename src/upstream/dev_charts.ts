/**
 * Deterministic development charts: metadata for `/chart/{id}` and the chart
 * archive (zip with `info.yml`, `chart.json`, `music.<ext>`) it points to.
 *
 * Defaults for id 1..{@link MAX_DEV_CHART_ID}: name `Chart <id>` (a few
 * well-known names), audio format `AUDIO_FORMATS[id % 4]` (wav, flac, ogg,
 * mp3), duration `30 + id % 91` seconds, deflated entries, chart file format
 * `DEV_CHART_FORMATS[floor(id / 100) % 3]` (official JSON, RPE, PEC).
 *
 * @module
 */

import { type Zippable, zipSync } from "fflate";
import { AUDIO_FORMATS, type AudioSpec, generateAudio, type GeneratedAudio } from "./dev_audio.ts";
import { DEV_CHART_FORMATS, devChartFile, type DevChartFormat } from "./dev_chart_content.ts";

/** Largest chart id with deterministic defaults. */
export const MAX_DEV_CHART_ID = 999999;
/** Shortest audio of a default chart (s). */
export const DEV_CHART_MIN_SECS = 30;
/** Longest audio of a default chart (s). */
export const DEV_CHART_MAX_SECS = DEV_CHART_MIN_SECS + 90;

/** A few chart ids with fixed names. */
export const DEV_WELL_KNOWN_CHARTS: Readonly<Record<number, string>> = {
  1: "Dev Tutorial",
  7: "Lucky Seven",
  42: "The Answer",
  404: "Not Found (Remix)",
  2026: "Chorus Anthem",
};

const CHARTERS = ["Lumen", "Quaver Lab", "Northgate", "Mika", "Rhombus"] as const;
const COMPOSERS = ["Aster Drift", "Kilohertz", "Sora Line", "Verdant", "Nine Volt", "Peregrine"] as const;
const ILLUSTRATORS = ["Pixel Fern", "Cobalt", "Yuzu"] as const;
const LEVELS = ["EZ", "HD", "IN", "AT"] as const;
const EPOCH = Date.UTC(2024, 0, 1);

/** Everything that defines a development chart. */
export interface DevChart {
  id: number;
  name: string;
  charter: string;
  composer: string;
  illustrator: string;
  level: string;
  difficulty: number;
  /** `null` for ids divisible by 10 (upstream may omit a rating). */
  rating: number | null;
  ranked: boolean;
  created: string;
  updated: string;
  chartUpdated: string;
  audio: AudioSpec;
  /** Format of the chart file (`dev_chart_content.ts`). */
  chartFormat: DevChartFormat;
  /** Deflate the archive entries (false: stored). */
  compress: boolean;
  /** The file server answers `200` with the whole archive, ignoring `Range`. */
  ignoreRange: boolean;
}

/** Whether `id` has deterministic defaults. */
export function isDevChartId(id: number): boolean {
  return Number.isInteger(id) && id >= 1 && id <= MAX_DEV_CHART_ID;
}

/** The default chart `id` (any positive i32; the API serves only 1..{@link MAX_DEV_CHART_ID} unless added). */
export function defaultDevChart(id: number): DevChart {
  const difficulty = 1 + ((id * 37) % 150) / 10;
  const created = EPOCH + id * 60_000;
  const updated = created + (id % 30) * 86_400_000;
  return {
    id,
    name: DEV_WELL_KNOWN_CHARTS[id] ?? `Chart ${id}`,
    charter: CHARTERS[id % CHARTERS.length]!,
    composer: COMPOSERS[id % COMPOSERS.length]!,
    illustrator: ILLUSTRATORS[id % ILLUSTRATORS.length]!,
    level: `${LEVELS[(id >> 2) % 4]} Lv.${Math.floor(difficulty)}`,
    difficulty,
    rating: id % 10 === 0 ? null : ((id * 13) % 50) / 10,
    ranked: id % 3 === 0,
    created: new Date(created).toISOString(),
    updated: new Date(updated).toISOString(),
    chartUpdated: new Date(updated).toISOString(),
    audio: {
      format: AUDIO_FORMATS[id % 4]!,
      durationSecs: DEV_CHART_MIN_SECS + (id % (DEV_CHART_MAX_SECS - DEV_CHART_MIN_SECS + 1)),
    },
    chartFormat: DEV_CHART_FORMATS[Math.floor(id / 100) % 3]!,
    compress: true,
    ignoreRange: false,
  };
}

/** The `/chart/{id}` body (camelCase, protocol.md §6); `fileUrl` is the archive's absolute URL. */
export function chartInfoJson(c: DevChart, fileUrl: string): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    level: c.level,
    difficulty: c.difficulty,
    charter: c.charter,
    composer: c.composer,
    illustrator: c.illustrator,
    description: `Development chart ${c.id}`,
    ranked: c.ranked,
    reviewed: true,
    stable: c.ranked,
    stableRequest: false,
    file: fileUrl,
    uploader: 100,
    created: c.created,
    updated: c.updated,
    chartUpdated: c.chartUpdated,
    tags: ["dev"],
    rating: c.rating,
  };
}

/** File name of a chart's archive under `/files/`. */
export function archiveName(id: number): string {
  return `chart-${id}.zip`;
}

/** Phira `info.yml` of a chart (camelCase keys, strings JSON-quoted, which YAML accepts). */
export function infoYml(c: DevChart, music: string, chart = "chart.json"): string {
  const q = JSON.stringify;
  return [
    `name: ${q(c.name)}`,
    `level: ${q(c.level)}`,
    `difficulty: ${c.difficulty}`,
    `charter: ${q(c.charter)}`,
    `composer: ${q(c.composer)}`,
    `illustrator: ${q(c.illustrator)}`,
    `chart: ${chart}`,
    `music: ${music}`,
    `previewStart: 0.0`,
    `aspectRatio: 1.7777778`,
    `backgroundDim: 0.6`,
    `lineLength: 6.0`,
    `offset: 0.0`,
    `tip: null`,
    `tags: ["dev"]`,
    `intro: ""`,
    `holdPartialCover: false`,
    `noteUniformScale: false`,
    "",
  ].join("\n");
}

/** A built archive. */
export interface ChartArchive {
  bytes: Uint8Array;
  /** Entry name of the audio file, as `info.yml` names it. */
  music: string;
  audio: Omit<GeneratedAudio, "bytes">;
}

/** Builds the zip of a chart (entries `info.yml`, `chart.json` or `chart.pec`, `music.<ext>`; fixed timestamps). */
export function buildChartArchive(c: DevChart): ChartArchive {
  const audio = generateAudio(c.audio, c.name);
  const music = `music.${c.audio.format}`;
  const u = new Date(c.updated);
  // fflate writes DOS times from local-time fields; building the Date from UTC fields keeps bytes TZ-independent.
  const mtime = new Date(u.getUTCFullYear(), u.getUTCMonth(), u.getUTCDate(), u.getUTCHours(), u.getUTCMinutes());
  const level = c.compress ? 6 : 0;
  const enc = new TextEncoder();
  const chart = devChartFile(c.chartFormat, c.audio.durationSecs);
  const files: Zippable = {
    "info.yml": [enc.encode(infoYml(c, music, chart.name)), { level, mtime }],
    [chart.name]: [enc.encode(chart.text), { level, mtime }],
    [music]: [audio.bytes, { level, mtime }],
  };
  const { bytes: _, ...props } = audio;
  return { bytes: withArchiveComment(zipSync(files), `chorus-dev chart ${c.id}`), music, audio: props };
}

/** Appends an archive comment (so readers must search for the end record instead of assuming the last 22 bytes). */
function withArchiveComment(zip: Uint8Array, comment: string): Uint8Array {
  const text = new TextEncoder().encode(comment);
  const out = new Uint8Array(zip.length + text.length);
  out.set(zip);
  out.set(text, zip.length);
  new DataView(out.buffer).setUint16(zip.length - 2, text.length, true);
  return out;
}
