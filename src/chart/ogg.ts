/**
 * Ogg duration (Vorbis I and Opus): the first page (BOS) carries the
 * identification header -- Vorbis gives the sample rate, Opus the pre-skip
 * (Opus granules always count 48 kHz samples). The duration is the granule
 * position of the stream's last page, found by walking the pages of the last
 * {@link OGG_TAIL_BYTES} (valid CRC, same serial number). Vorbis: granule / rate; Opus: (granule - pre-skip) / 48000.
 *
 * @module
 */

import { type AudioInfo, audioInfo } from "./audio_info.ts";
import { type ByteView, hasAscii, uint64LE, uintLE } from "./bytes.ts";
import { ChartProbeError } from "./errors.ts";

/** Bytes read from the end: more than the largest Ogg page (27 + 255 + 255 × 255 = 65307 bytes). */
export const OGG_TAIL_BYTES = 65536;

const CRC_TABLE: Readonly<Uint32Array> = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

/** The Ogg page checksum (CRC-32, polynomial 0x04C11DB7, no reflection) with the CRC field read as zero. */
export function oggPageCrc(page: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < page.byteLength; i++) {
    const b = i >= 22 && i < 26 ? 0 : page[i]!;
    crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ b) & 0xff]!) >>> 0;
  }
  return crc;
}

interface Stream {
  serial: number;
  /** Granule units per second. */
  rate: number;
  /** Granules to subtract (Opus pre-skip). */
  skip: number;
  sampleRate: number;
}

function identify(view: ByteView): Stream {
  const h = view.exact(0, 27, "the first Ogg page");
  if (!hasAscii(h, 0, "OggS") || h[4] !== 0) throw new ChartProbeError("bad_audio", "Cannot read Ogg: no OggS page");
  if (!(h[5]! & 0x02)) throw new ChartProbeError("bad_audio", "Cannot read Ogg: the first page is not a stream start");
  const segments = h[26]!;
  const lacing = view.exact(27, segments, "the first Ogg page");
  let len = 0;
  for (const l of lacing) {
    len += l;
    if (l < 255) break;
  }
  const p = view.exact(27 + segments, Math.min(len, 64), "the Ogg identification header");
  const serial = uintLE(h, 14, 4);
  if (p[0] === 1 && hasAscii(p, 1, "vorbis") && p.byteLength >= 16) {
    const rate = uintLE(p, 12, 4);
    if (rate === 0) throw new ChartProbeError("bad_audio", "Cannot read Vorbis: sample rate is 0");
    return { serial, rate, skip: 0, sampleRate: rate };
  }
  if (hasAscii(p, 0, "OpusHead") && p.byteLength >= 16) {
    return { serial, rate: 48000, skip: uintLE(p, 10, 2), sampleRate: uintLE(p, 12, 4) || 48000 };
  }
  throw new ChartProbeError("unsupported", "Cannot read Ogg: the stream is neither Vorbis nor Opus");
}

/** The page at `at` in `tail` if it is complete and its CRC matches: its end, serial and granule (`null` for -1). */
function pageAt(tail: Uint8Array, at: number): { end: number; serial: number; granule: number | null } | null {
  if (!hasAscii(tail, at, "OggS") || tail[at + 4] !== 0 || at + 27 > tail.byteLength) return null;
  const segments = tail[at + 26]!;
  if (at + 27 + segments > tail.byteLength) return null;
  let body = 0;
  for (let i = 0; i < segments; i++) body += tail[at + 27 + i]!;
  const end = at + 27 + segments + body;
  if (end > tail.byteLength) return null;
  if (oggPageCrc(tail.subarray(at, end)) !== uintLE(tail, at + 22, 4)) return null;
  return { end, serial: uintLE(tail, at + 14, 4), granule: uint64LE(tail, at + 6) };
}

/**
 * Reads the duration of an Ogg Vorbis or Ogg Opus file. The tail is walked forwards from page to page
 * (resynchronizing byte by byte where needed), so a page-like byte run inside packet data is jumped over.
 */
export function probeOgg(view: ByteView): AudioInfo {
  const s = identify(view);
  const start = Math.max(0, view.size - OGG_TAIL_BYTES);
  const tail = view.upTo(start, view.size - start);
  let granule: number | null = null;
  for (let at = 0; at + 27 <= tail.byteLength;) {
    const p = pageAt(tail, at);
    if (!p) {
      at++;
      continue;
    }
    if (p.serial === s.serial && p.granule !== null) granule = p.granule;
    at = p.end;
  }
  if (granule === null) {
    throw new ChartProbeError(
      "bad_audio",
      `Cannot read the Ogg duration: no final page in the last ${tail.byteLength} bytes`,
    );
  }
  return audioInfo("ogg", (granule - s.skip) / s.rate, s.sampleRate);
}
