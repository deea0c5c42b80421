/**
 * Which zip entry holds the chart's music: the one `info.yml` names in its
 * `music` key (Phira chart info), resolved next to `info.yml`; otherwise the
 * first entry with an audio extension.
 *
 * @module
 */

import { parse } from "yaml";
import { AUDIO_EXTENSIONS } from "./audio.ts";
import type { ZipEntry } from "./zip.ts";

/** Largest `info.yml` read. */
export const MAX_INFO_BYTES = 64 * 1024;

function normalize(name: string): string {
  return name.replace(/\\/g, "/").replace(/^(\.\/)+/, "");
}

function baseName(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

/** The `info.yml` entry, at the root or else in the shallowest folder; `null` when absent. */
export function findInfoEntry(entries: readonly ZipEntry[]): ZipEntry | null {
  let best: ZipEntry | null = null;
  let depth = Infinity;
  for (const e of entries) {
    const n = normalize(e.name);
    if (baseName(n).toLowerCase() !== "info.yml") continue;
    const d = n.split("/").length;
    if (d < depth) [best, depth] = [e, d];
  }
  return best;
}

/** The `music` value of an `info.yml` text; `null` when it is not YAML or has no string `music`. */
export function musicFromInfo(text: string): string | null {
  let doc: unknown;
  try {
    doc = parse(text.replace(/^\uFEFF/, ""), { maxAliasCount: 16, uniqueKeys: false });
  } catch {
    return null;
  }
  if (typeof doc !== "object" || doc === null || !("music" in doc)) return null;
  const music = (doc as { music: unknown }).music;
  return typeof music === "string" && music.trim() !== "" ? music.trim() : null;
}

/** The entry named `name` relative to the folder of `info` (exact match first, then ignoring case). */
export function findNamed(entries: readonly ZipEntry[], info: ZipEntry, name: string): ZipEntry | null {
  const infoName = normalize(info.name);
  const path = infoName.slice(0, infoName.lastIndexOf("/") + 1) + normalize(name);
  const lower = path.toLowerCase();
  return entries.find((e) => normalize(e.name) === path) ??
    entries.find((e) => normalize(e.name).toLowerCase() === lower) ?? null;
}

/** The first file entry with an audio extension, in directory order; `null` when there is none. */
export function firstAudioEntry(entries: readonly ZipEntry[]): ZipEntry | null {
  return entries.find((e) => {
    const n = e.name.toLowerCase();
    return !n.endsWith("/") && AUDIO_EXTENSIONS.some((x) => n.endsWith(x));
  }) ?? null;
}
