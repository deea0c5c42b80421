/**
 * MP3 (MPEG-1/2/2.5 audio, layers I-III) duration. Skip ID3v2 tags, find the
 * first frame whose successor is also a frame, read version, layer, bit rate
 * and sample rate from its header. When the first frame is a Xing/`Info` or
 * VBRI frame with a frame count: duration = frames × samples per frame / rate.
 * Otherwise the stream is taken as CBR: audio bytes × 8 / bit rate.
 *
 * @module
 */

import { type AudioInfo, audioInfo } from "./audio_info.ts";
import { type ByteView, hasAscii, uintBE } from "./bytes.ts";
import { ChartProbeError } from "./errors.ts";
import { skipId3v2 } from "./id3.ts";

/** Bytes after the tags searched for the first frame (encoders may pad with junk). */
const MAX_SYNC_SCAN = 64 * 1024;
const SCAN_CHUNK = 4096;

// kbit/s by bit-rate index; rows: MPEG-1 layer I, II, III; MPEG-2/2.5 layer I; MPEG-2/2.5 layers II and III.
const BITRATES: readonly (readonly number[])[] = [
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];
const SAMPLE_RATES: readonly number[] = [44100, 48000, 32000];

/** A parsed MPEG audio frame header. */
export interface Mp3FrameHeader {
  /** 1 for MPEG-1, 2 for MPEG-2, 2.5 for MPEG-2.5. */
  version: 1 | 2 | 2.5;
  layer: 1 | 2 | 3;
  bitrate: number;
  sampleRate: number;
  /** Samples per channel in one frame. */
  samples: number;
  /** Frame length in bytes, header included. */
  length: number;
  mono: boolean;
  crc: boolean;
}

/** Parses the 4-byte frame header at `at`; `null` when it is not a usable header (free format included). */
export function parseFrameHeader(b: Uint8Array, at = 0): Mp3FrameHeader | null {
  if (at + 4 > b.byteLength || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return null;
  const v = (b[at + 1]! >> 3) & 3;
  const l = (b[at + 1]! >> 1) & 3;
  const bi = b[at + 2]! >> 4;
  const si = (b[at + 2]! >> 2) & 3;
  if (v === 1 || l === 0 || bi === 0 || bi === 15 || si === 3) return null;
  const version = v === 3 ? 1 : v === 2 ? 2 : 2.5;
  const layer = (4 - l) as 1 | 2 | 3;
  const row = version === 1 ? layer - 1 : layer === 1 ? 3 : 4;
  const bitrate = BITRATES[row]![bi]! * 1000;
  const sampleRate = SAMPLE_RATES[si]! / (version === 1 ? 1 : version === 2 ? 2 : 4);
  const pad = (b[at + 2]! >> 1) & 1;
  const samples = layer === 1 ? 384 : layer === 3 && version !== 1 ? 576 : 1152;
  const length = layer === 1
    ? (Math.floor((12 * bitrate) / sampleRate) + pad) * 4
    : Math.floor((samples / 8) * bitrate / sampleRate) + pad;
  return { version, layer, bitrate, sampleRate, samples, length, mono: b[at + 3]! >> 6 === 3, crc: !(b[at + 1]! & 1) };
}

function sameStream(a: Mp3FrameHeader, b: Mp3FrameHeader): boolean {
  return a.version === b.version && a.layer === b.layer && a.sampleRate === b.sampleRate;
}

/** Offset and header of the first frame at or after `start` that a second frame follows (or that ends the file). */
function firstFrame(view: ByteView, start: number): { at: number; h: Mp3FrameHeader } {
  for (let base = start; base < Math.min(view.size, start + MAX_SYNC_SCAN); base += SCAN_CHUNK) {
    const chunk = view.upTo(base, SCAN_CHUNK);
    for (let i = 0; i < chunk.byteLength; i++) {
      if (chunk[i] !== 0xff) continue;
      const at = base + i;
      const h = parseFrameHeader(view.upTo(at, 4));
      if (!h) continue;
      const next = at + h.length;
      if (next + 4 > view.size) return { at, h };
      const h2 = parseFrameHeader(view.upTo(next, 4));
      if (h2 && sameStream(h, h2)) return { at, h };
    }
  }
  throw new ChartProbeError("bad_audio", `Cannot read MP3: no frame sync within ${MAX_SYNC_SCAN} bytes`);
}

/** Frame count from a Xing/`Info` or VBRI header inside the frame at `at`, or `null`. */
function vbrFrames(view: ByteView, at: number, h: Mp3FrameHeader): number | null {
  const frame = view.upTo(at, Math.min(h.length, 192));
  const side = h.layer !== 3 ? 0 : h.version === 1 ? (h.mono ? 17 : 32) : (h.mono ? 9 : 17);
  // Xing sits right after the side information (some writers ignore the CRC word, so try both places).
  for (const off of h.crc ? [6 + side, 4 + side] : [4 + side]) {
    if (hasAscii(frame, off, "Xing") || hasAscii(frame, off, "Info")) {
      const flags = uintBE(frame, off + 4, 4);
      if (!(flags & 1) || off + 12 > frame.byteLength) return null;
      return uintBE(frame, off + 8, 4);
    }
  }
  if (hasAscii(frame, 36, "VBRI") && frame.byteLength >= 36 + 18) return uintBE(frame, 36 + 14, 4);
  return null;
}

/** Reads the duration of an MP3 file. */
export function probeMp3(view: ByteView): AudioInfo {
  const { at, h } = firstFrame(view, skipId3v2(view));
  const frames = vbrFrames(view, at, h);
  if (frames !== null && frames > 0) return audioInfo("mp3", (frames * h.samples) / h.sampleRate, h.sampleRate);
  return audioInfo("mp3", ((view.size - at) * 8) / h.bitrate, h.sampleRate);
}
