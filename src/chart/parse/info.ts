/**
 * `info.yml` (Phira chart info, camelCase keys) to {@link ChartInfo}, like
 * serde with `#[serde(default)]`: absent keys take prpr's defaults, unknown
 * keys are ignored, present keys of the wrong type are errors. Date-times are
 * normalised to UTC RFC 3339 the way chrono writes them (fractional seconds
 * only when present, `Z`).
 *
 * @module
 */

import { parse } from "yaml";
import { defaultChartInfo } from "../model/build.ts";
import { CHART_FORMATS, type ChartFormat, type ChartInfo } from "../model/types.ts";
import { invalid } from "./errors.ts";

/** Parses `info.yml` text. */
export function parseInfo(text: string): ChartInfo {
  let doc: unknown;
  try {
    doc = parse(text.replace(/^\uFEFF/, ""), {
      maxAliasCount: 16,
      uniqueKeys: false,
      prettyErrors: false,
      logLevel: "error",
    });
  } catch (e) {
    invalid(`Cannot parse info.yml: not YAML (${e instanceof Error ? e.message.split("\n")[0] : String(e)})`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== "object" || Array.isArray(doc)) invalid("Cannot parse info.yml: expected a mapping of keys");
  const o = doc as Record<string, unknown>;
  const info = defaultChartInfo();
  const bad = (key: string, what: string): never => {
    const shown = JSON.stringify(o[key]) ?? String(o[key]);
    invalid(`Cannot parse info.yml: ${key}: expected ${what}, got ${shown.slice(0, 40)}`);
  };
  const has = (k: string) => o[k] !== undefined;
  const nul = (k: string) => o[k] === null;
  const num = (k: string): number =>
    typeof o[k] === "number" && Number.isFinite(o[k]) ? o[k] as number : bad(k, "a number");
  const i32 = (k: string): number => {
    const v = num(k);
    return Number.isInteger(v) && Math.abs(v) <= 2 ** 31 - (v < 0 ? 0 : 1) ? v : bad(k, "a 32-bit integer");
  };
  const str = (k: string): string => typeof o[k] === "string" ? o[k] as string : bad(k, "a string");
  const bool = (k: string): boolean => typeof o[k] === "boolean" ? o[k] as boolean : bad(k, "true or false");
  const date = (k: string): string => normalizeDateTime(str(k)) ?? bad(k, "an RFC 3339 date-time");

  if (has("id")) info.id = nul("id") ? null : i32("id");
  if (has("uploader")) info.uploader = nul("uploader") ? null : i32("uploader");
  for (
    const k of [
      "name",
      "level",
      "charter",
      "composer",
      "illustrator",
      "chart",
      "music",
      "illustration",
      "intro",
    ] as const
  ) {
    if (has(k)) info[k] = str(k);
  }
  if (has("difficulty")) info.difficulty = num("difficulty");
  if (has("format") && !nul("format")) {
    const f = str("format").toLowerCase();
    if (!(CHART_FORMATS as readonly string[]).includes(f)) bad("format", "rpe, pec, pgr or pbc");
    info.format = f as ChartFormat;
  }
  if (has("unlockVideo")) info.unlock_video = nul("unlockVideo") ? null : str("unlockVideo");
  if (has("previewStart")) info.preview_start = num("previewStart");
  if (has("previewEnd")) info.preview_end = nul("previewEnd") ? null : num("previewEnd");
  if (has("aspectRatio")) info.aspect_ratio = num("aspectRatio");
  if (has("backgroundDim")) info.background_dim = num("backgroundDim");
  if (has("lineLength")) info.line_length = num("lineLength");
  if (has("offset")) info.offset = num("offset");
  if (has("tip")) info.tip = nul("tip") ? null : str("tip");
  if (has("tags")) {
    const t = o.tags;
    if (!Array.isArray(t) || !t.every((x) => typeof x === "string")) bad("tags", "a list of strings");
    info.tags = t as string[];
  }
  if (has("holdPartialCover")) info.hold_partial_cover = bool("holdPartialCover");
  if (has("noteUniformScale")) info.note_uniform_scale = bool("noteUniformScale");
  if (has("created")) info.created = nul("created") ? null : date("created");
  if (has("updated")) info.updated = nul("updated") ? null : date("updated");
  if (has("chartUpdated")) info.chart_updated = nul("chartUpdated") ? null : date("chartUpdated");
  if (!(info.aspect_ratio > 0)) bad("aspectRatio", "a positive number");
  return info;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time in UTC as chrono's `DateTime<Utc>` serializes it: `YYYY-MM-DDTHH:MM:SS`, then `.` and 3, 6
 * or 9 digits when the fraction is not zero, then `Z`; `null` when `s` is not RFC 3339.
 */
export function normalizeDateTime(s: string): string | null {
  const m = RFC3339.exec(s.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return null;
  let ms = Date.UTC(y, mo - 1, d, h, mi, Math.min(se, 59));
  if (new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d) return null;
  if (m[9]) ms -= (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) * 60_000;
  const t = new Date(ms);
  if (Number.isNaN(t.getTime()) || t.getUTCFullYear() > 9999 || t.getUTCFullYear() < 0) return null;
  const p = (v: number, n = 2) => String(v).padStart(n, "0");
  let frac = (m[7] ?? "").padEnd(9, "0").replace(/^0{9}$/, "");
  if (frac !== "") {
    frac = "." + (frac.endsWith("000000") ? frac.slice(0, 3) : frac.endsWith("000") ? frac.slice(0, 6) : frac);
  }
  return `${p(t.getUTCFullYear(), 4)}-${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())}T${p(t.getUTCHours())}:` +
    `${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())}${frac}Z`;
}
