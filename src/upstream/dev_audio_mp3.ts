/**
 * Development MP3 writer: MPEG-1 Layer III silence at 128 kbps (CBR).
 *
 * Layout: an ID3v2.4 tag (`TIT2` title in UTF-8 plus 32 bytes of padding; its
 * syncsafe size must be skipped by a prober), then, unless `xing` is false, an
 * `Info` frame (a regular silent frame whose bytes after the side information
 * hold `Info`, flags 0x3, the number of audio frames after it, and the byte
 * count of all frames including itself), then the audio frames. Every frame:
 * header `FFFB` (MPEG-1, Layer III, no CRC), bitrate index 9 (128 kbps),
 * sample-rate index, padding bit as a CBR encoder sets it (keeping the mean
 * frame length at 144 × bitrate / rate), channel mode stereo or mono; all-zero
 * side information (no main data, i.e. silence) and zero fill.
 * 1152 samples per frame, so duration = audio frames × 1152 / sample rate
 * (without an `Info` frame: bytes after the tag × 8 / 128000, up to rounding).
 *
 * @module
 */

import { ByteSink } from "./dev_audio_bits.ts";
import type { PcmParams } from "./dev_audio_wav.ts";

/** Samples per MPEG-1 Layer III frame. */
export const MP3_FRAME_SAMPLES = 1152;
/** Bit rate of the generated stream. */
export const MP3_BITRATE = 128000;

const RATE_INDEX: Readonly<Record<number, number>> = { 44100: 0, 48000: 1, 32000: 2 };

function id3(title: string): Uint8Array {
  const text = new TextEncoder().encode(title);
  const frameSize = 1 + text.length;
  const padding = 32;
  const s = new ByteSink();
  s.ascii("ID3");
  s.byte(4);
  s.byte(0);
  s.byte(0);
  s.bytes(syncsafe(10 + frameSize + padding));
  s.ascii("TIT2");
  s.bytes(syncsafe(frameSize));
  s.le(0, 2); // frame flags
  s.byte(3); // UTF-8
  s.bytes(text);
  s.bytes(new Uint8Array(padding));
  return s.toBytes();
}

function syncsafe(n: number): Uint8Array {
  return Uint8Array.of((n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f);
}

function header(rateIndex: number, padding: boolean, mono: boolean): Uint8Array {
  return Uint8Array.of(
    0xff,
    0xfb, // sync, MPEG-1, Layer III, no CRC
    (9 << 4) | (rateIndex << 2) | (padding ? 2 : 0),
    (mono ? 3 : 0) << 6, // channel mode, no mode extension, no copyright, not original, no emphasis
  );
}

/** Parameters of {@link encodeMp3}; `totalSamples` must be a multiple of {@link MP3_FRAME_SAMPLES}. */
export interface Mp3Params extends PcmParams {
  /** Write an `Info` (Xing) frame with the frame count (default true). */
  xing?: boolean;
}

/** Encodes silence as an MP3 file. */
export function encodeMp3(p: Mp3Params): Uint8Array {
  const rateIndex = RATE_INDEX[p.sampleRate];
  if (rateIndex === undefined) throw new RangeError(`Cannot encode MP3: sample rate ${p.sampleRate} is not MPEG-1`);
  if (p.channels !== 1 && p.channels !== 2) throw new RangeError(`Cannot encode MP3: ${p.channels} channels`);
  if (p.totalSamples % MP3_FRAME_SAMPLES !== 0) throw new RangeError("Cannot encode MP3: partial frame");
  const mono = p.channels === 1;
  const sideInfo = mono ? 17 : 32;
  const base = Math.floor((144 * MP3_BITRATE) / p.sampleRate);
  const step = (144 * MP3_BITRATE) % p.sampleRate;
  const frames = p.totalSamples / MP3_FRAME_SAMPLES;
  const xing = p.xing ?? true;
  // Padding as a CBR encoder decides it: carry the fractional part of the frame length.
  const paddings: boolean[] = [];
  let carry = 0;
  for (let i = 0; i < frames + (xing ? 1 : 0); i++) {
    carry += step;
    const pad = carry >= p.sampleRate;
    if (pad) carry -= p.sampleRate;
    paddings.push(pad);
  }
  const streamBytes = paddings.reduce((sum, pad) => sum + base + (pad ? 1 : 0), 0);
  const tag = id3(p.title);
  const out = new Uint8Array(tag.length + streamBytes);
  out.set(tag);
  let at = tag.length;
  for (let i = 0; i < paddings.length; i++) {
    const pad = paddings[i]!;
    out.set(header(rateIndex, pad, mono), at);
    if (xing && i === 0) {
      const info = new ByteSink();
      info.ascii("Info");
      info.be(0x3, 4); // frames and bytes fields present
      info.be(frames, 4);
      info.be(streamBytes, 4);
      out.set(info.toBytes(), at + 4 + sideInfo);
    }
    at += base + (pad ? 1 : 0);
  }
  return out;
}
