/**
 * Line textures (extended.md §5.5 `Texture`: PNG bytes) from PNG, JPEG or
 * GIF files of a chart, through maintained codecs: `fast-png` (decode and
 * encode), `jpeg-js`, `omggif`. Like prpr's port, every image is re-encoded
 * as 8-bit RGBA PNG. Sizes are checked from the headers before any pixel is
 * decoded, and every decoded pixel counts against the chart's pixel budget.
 *
 * @module
 */

import { convertIndexedToRgb, decode as decodePng, encode as encodePng } from "fast-png";
import jpeg from "jpeg-js";
import omggif from "omggif";
import { hasAscii, uintBE } from "../bytes.ts";
import type { GifFrames, Texture } from "../model/types.ts";
import { ChartParseError, invalid, tooLarge } from "../parse/errors.ts";
import type { ChartLimits } from "../parse/limits.ts";

/** Counts decoded pixels of one chart against its limits. */
export class PixelBudget {
  #used = 0;
  readonly #limits: ChartLimits;

  /** A budget of `limits`. */
  constructor(limits: ChartLimits) {
    this.#limits = limits;
  }

  /** Accepts an image of `w` × `h` or throws `too_large`. */
  take(w: number, h: number, what: string): void {
    const l = this.#limits;
    if (!(w > 0 && h > 0)) invalid(`Cannot decode ${what}: its size is ${w} × ${h}`);
    if (w > l.maxImageSide || h > l.maxImageSide || w * h > l.maxImagePixels) {
      tooLarge(
        `Cannot decode ${what}: ${w} × ${h} pixels is over the limit (${l.maxImageSide} a side, ${l.maxImagePixels} in all)`,
      );
    }
    this.#used += w * h;
    if (this.#used > l.maxTotalPixels) {
      tooLarge(`Cannot decode ${what}: the chart's images exceed ${l.maxTotalPixels} pixels`);
    }
  }
}

function rgbaPng(width: number, height: number, data: Uint8Array): Texture {
  return { data: encodePng({ width, height, data, depth: 8, channels: 4 }) };
}

function toRgba(width: number, height: number, src: ArrayLike<number>, channels: number, depth: number): Uint8Array {
  const n = width * height;
  const out = new Uint8Array(n * 4);
  const max = depth === 16 ? 65535 : depth === 8 ? 255 : (1 << depth) - 1;
  const at = (i: number) => Math.round((src[i]! * 255) / max);
  for (let p = 0; p < n; p++) {
    const s = p * channels, d = p * 4;
    if (channels >= 3) {
      out[d] = at(s);
      out[d + 1] = at(s + 1);
      out[d + 2] = at(s + 2);
      out[d + 3] = channels === 4 ? at(s + 3) : 255;
    } else {
      out[d] = out[d + 1] = out[d + 2] = at(s);
      out[d + 3] = channels === 2 ? at(s + 1) : 255;
    }
  }
  return out;
}

/** Unpacks 1/2/4-bit samples (rows padded to whole bytes) into one value per sample. */
function unpackBits(data: ArrayLike<number>, width: number, height: number, channels: number, depth: number): number[] {
  const perRow = width * channels;
  const rowBytes = Math.ceil((perRow * depth) / 8);
  const out: number[] = new Array(perRow * height);
  for (let y = 0; y < height; y++) {
    for (let i = 0; i < perRow; i++) {
      const bit = i * depth;
      const byte = data[y * rowBytes + (bit >> 3)]!;
      out[y * perRow + i] = (byte >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
    }
  }
  return out;
}

function fromPng(bytes: Uint8Array, what: string, budget: PixelBudget): Texture {
  // IHDR: width and height at bytes 16..24, checked before the pixels are inflated.
  if (!hasAscii(bytes, 12, "IHDR")) invalid(`Cannot decode ${what}: PNG without IHDR`);
  budget.take(uintBE(bytes, 16, 4), uintBE(bytes, 20, 4), what);
  const png = decodePng(bytes);
  const { width, height } = png;
  if (png.palette) {
    const rgb = convertIndexedToRgb(png);
    const channels = rgb.length / (width * height);
    return rgbaPng(width, height, toRgba(width, height, rgb, channels, 8));
  }
  if (png.channels === 4 && png.depth === 8) return rgbaPng(width, height, png.data as Uint8Array);
  const data = png.depth < 8 && !(png.data.length === width * height * png.channels)
    ? unpackBits(png.data, width, height, png.channels, png.depth)
    : png.data;
  return rgbaPng(width, height, toRgba(width, height, data, png.channels, png.depth));
}

function fromJpeg(bytes: Uint8Array, what: string, budget: PixelBudget, limits: ChartLimits): Texture {
  const img = jpeg.decode(bytes, {
    useTArray: true,
    formatAsRGBA: true,
    maxResolutionInMP: limits.maxImagePixels / 1_000_000,
    maxMemoryUsageInMB: Math.ceil((limits.maxImagePixels * 8) / (1 << 20)),
  });
  budget.take(img.width, img.height, what);
  return rgbaPng(img.width, img.height, img.data as Uint8Array);
}

interface GifReaderLike {
  width: number;
  height: number;
  numFrames(): number;
  frameInfo(i: number): { delay: number; disposal: number; x: number; y: number; width: number; height: number };
  decodeAndBlitFrameRGBA(i: number, pixels: Uint8Array): void;
}

function gifReader(bytes: Uint8Array): GifReaderLike {
  return new (omggif as unknown as { GifReader: new (b: Uint8Array) => GifReaderLike }).GifReader(bytes);
}

/** The frames of an animated GIF with their delays (ms; a delay under 20 ms plays as 100 ms, as browsers do). */
export function decodeGif(bytes: Uint8Array, name: string, budget: PixelBudget, limits: ChartLimits): GifFrames {
  const what = JSON.stringify(name);
  return guarded(what, () => {
    if (!hasAscii(bytes, 0, "GIF8")) invalid(`Cannot decode ${what}: not a GIF`);
    const r = gifReader(bytes);
    const n = r.numFrames();
    if (n === 0) invalid(`Cannot decode ${what}: the GIF has no frames`);
    if (n > limits.maxGifFrames) tooLarge(`Cannot decode ${what}: ${n} frames, over ${limits.maxGifFrames}`);
    const canvas = new Uint8Array(r.width * r.height * 4);
    const frames: [number, Texture][] = [];
    for (let i = 0; i < n; i++) {
      budget.take(r.width, r.height, `${what} frame ${i}`);
      const f = r.frameInfo(i);
      const before = f.disposal === 3 ? canvas.slice() : null;
      r.decodeAndBlitFrameRGBA(i, canvas);
      const delay = f.delay * 10 < 20 ? 100 : f.delay * 10;
      frames.push([delay, rgbaPng(r.width, r.height, canvas.slice())]);
      if (f.disposal === 2) {
        for (let y = f.y; y < Math.min(f.y + f.height, r.height); y++) {
          canvas.fill(0, (y * r.width + f.x) * 4, (y * r.width + Math.min(f.x + f.width, r.width)) * 4);
        }
      } else if (before) canvas.set(before);
    }
    return { frames, total_time: frames.reduce((s, [d]) => s + d, 0) };
  });
}

/** A still image (PNG, JPEG, or a GIF's first frame) as an RGBA PNG texture. */
export function decodeTexture(bytes: Uint8Array, name: string, budget: PixelBudget, limits: ChartLimits): Texture {
  const what = JSON.stringify(name);
  return guarded(what, () => {
    if (hasAscii(bytes, 0, "\x89PNG\r\n\x1a\n")) return fromPng(bytes, what, budget);
    if (bytes[0] === 0xff && bytes[1] === 0xd8) return fromJpeg(bytes, what, budget, limits);
    if (hasAscii(bytes, 0, "GIF8")) {
      const g = decodeGif(bytes, name, budget, limits);
      return g.frames[0]![1];
    }
    throw new ChartParseError("unsupported", `Cannot decode ${what}: not a PNG, JPEG or GIF image`);
  });
}

function guarded<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ChartParseError) throw e;
    invalid(`Cannot decode ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
