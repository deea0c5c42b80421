/**
 * `{"info": ChartInfo, "chart": Chart}` as serde_json would write the model
 * (`GET /chart/{id}.json`, issue 19): snake_case fields, enums externally
 * tagged, `Option` as `null`, f32 values printed shortest-first the way Rust
 * prints them (`0.1`, not `0.10000000149011612`). Left out for browsers: PCM
 * samples (an `AudioClip` keeps `sample_rate`, `channel_count` and gains
 * `sample_count`) and texture bytes (a `Texture` becomes `{"png_bytes": n}`).
 * `hitsounds` is a list of `[HitSound, AudioClip]` pairs, since serde_json
 * cannot write a map with `{"Custom": ...}` keys.
 *
 * @module
 */

import type { AudioClip, Chart, ChartInfo, Texture } from "../model/types.ts";

/** The shortest decimal that reads back as the same f32 (Rust's `{}` of an f32). */
export function f32Number(v: number): number {
  const x = Math.fround(v);
  if (!Number.isFinite(x) || Number.isInteger(x)) return x;
  for (let p = 1; p < 10; p++) {
    const c = Number(x.toPrecision(p));
    if (Math.fround(c) === x) return c;
  }
  return x;
}

function clip(c: AudioClip): Record<string, number> {
  return { sample_rate: c.sample_rate, channel_count: c.channel_count, sample_count: c.samples.length };
}

function texture(t: Texture): Record<string, number> {
  return { png_bytes: t.data.byteLength };
}

/** Integer fields (never rounded to f32). */
const INTEGER_KEYS = new Set(["cursor", "z_index", "parent", "id", "uploader", "TweenId"]);

function convert(v: unknown, key: string): unknown {
  if (typeof v === "number") return INTEGER_KEYS.has(key) ? v : f32Number(v);
  if (v === null || typeof v !== "object") return v;
  if (v instanceof Uint8Array || v instanceof Float32Array) return undefined;
  if (Array.isArray(v)) return v.map((x, i) => convert(x, i === 0 && key === "Clamped" ? "TweenId" : key));
  const o = v as Record<string, unknown>;
  if ("data" in o && o.data instanceof Uint8Array) return texture(o as unknown as Texture);
  if ("samples" in o && o.samples instanceof Float32Array) return clip(o as unknown as AudioClip);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) out[k] = convert(x, k);
  return out;
}

/** The JSON value of the model (see the module doc); `JSON.stringify` it. */
export function chartJson(info: ChartInfo, chart: Chart): { info: unknown; chart: unknown } {
  return { info: convert(info, ""), chart: convert(chart, "") };
}
