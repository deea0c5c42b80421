/**
 * Development FLAC writer: a decoder-valid stream of constant (silent) subframes.
 *
 * Layout: `fLaC`; metadata blocks STREAMINFO (34 bytes: block size 4096/4096,
 * real min/max frame sizes, sample rate, channels, 16 bits per sample, the
 * 36-bit total sample count, MD5 all zero = "not computed"), VORBIS_COMMENT
 * (vendor `chorus-dev`, `TITLE=`), PADDING (64 bytes, last). Then fixed-blocksize
 * frames of 4096 samples (the last one shorter), each: sync `FFF8`, block-size
 * and sample-rate codes, channel assignment (independent), sample size 16,
 * UTF-8-coded frame number, optional explicit block size, CRC-8; one CONSTANT
 * subframe per channel (value 0); CRC-16.
 * Duration = STREAMINFO total samples / sample rate.
 *
 * @module
 */

import { ByteSink, crc16, crc8, MsbBitWriter } from "./dev_audio_bits.ts";
import type { PcmParams } from "./dev_audio_wav.ts";

/** Samples per FLAC frame. */
export const FLAC_BLOCK_SIZE = 4096;

const RATE_CODES: Readonly<Record<number, number>> = {
  88200: 1,
  176400: 2,
  192000: 3,
  8000: 4,
  16000: 5,
  22050: 6,
  24000: 7,
  32000: 8,
  44100: 9,
  48000: 10,
  96000: 11,
};

function utf8Number(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  let rest = n;
  let cont = 0;
  let limit = 0x3f; // payload bits that fit the leading byte shrink as the sequence grows
  while (rest > limit) {
    bytes.unshift(0x80 | (rest % 64));
    rest = Math.floor(rest / 64);
    cont++;
    limit >>= 1;
  }
  const lead = (0xff << (7 - cont)) & 0xff;
  bytes.unshift(lead | rest);
  return bytes;
}

function frame(p: PcmParams, index: number, samples: number): Uint8Array {
  const w = new MsbBitWriter();
  w.write(0xfff8, 16); // sync, reserved 0, fixed block size
  const sizeCode = samples === FLAC_BLOCK_SIZE ? 12 : samples <= 256 ? 6 : 7;
  const rateCode = RATE_CODES[p.sampleRate] ?? (p.sampleRate <= 65535 ? 13 : 0);
  w.write(sizeCode, 4);
  w.write(rateCode, 4);
  w.write(p.channels - 1, 4); // independent channels
  w.write(4, 3); // 16 bits per sample
  w.write(0, 1);
  for (const b of utf8Number(index)) w.write(b, 8);
  if (sizeCode === 6) w.write(samples - 1, 8);
  if (sizeCode === 7) w.write(samples - 1, 16);
  if (rateCode === 13) w.write(p.sampleRate, 16);
  const header = w.finish();
  const out = new ByteSink();
  out.bytes(header);
  out.byte(crc8(header));
  for (let c = 0; c < p.channels; c++) {
    out.byte(0x00); // zero pad bit, CONSTANT subframe, no wasted bits
    out.be(0, 2); // the constant sample value (16 bits)
  }
  const body = out.toBytes();
  const result = new Uint8Array(body.length + 2);
  result.set(body);
  const crc = crc16(body);
  result[body.length] = crc >> 8;
  result[body.length + 1] = crc & 0xff;
  return result;
}

function blockHeader(type: number, last: boolean, length: number): Uint8Array {
  return Uint8Array.of((last ? 0x80 : 0) | type, length >> 16, (length >> 8) & 0xff, length & 0xff);
}

/** Encodes silence as a FLAC file. */
export function encodeFlac(p: PcmParams): Uint8Array {
  if (p.channels < 1 || p.channels > 8) throw new RangeError(`Cannot encode FLAC: ${p.channels} channels`);
  const frames: Uint8Array[] = [];
  for (let i = 0, done = 0; done < p.totalSamples; i++) {
    const n = Math.min(FLAC_BLOCK_SIZE, p.totalSamples - done);
    frames.push(frame(p, i, n));
    done += n;
  }
  const sizes = frames.map((f) => f.length);
  const info = new MsbBitWriter();
  info.write(FLAC_BLOCK_SIZE, 16);
  info.write(FLAC_BLOCK_SIZE, 16);
  info.write(sizes.length ? Math.min(...sizes) : 0, 24);
  info.write(sizes.length ? Math.max(...sizes) : 0, 24);
  info.write(p.sampleRate, 20);
  info.write(p.channels - 1, 3);
  info.write(15, 5); // 16 bits per sample
  info.write(p.totalSamples, 36);
  for (let i = 0; i < 16; i++) info.write(0, 8); // MD5 unknown
  const comment = new ByteSink();
  const vendor = "chorus-dev";
  const tag = new TextEncoder().encode(`TITLE=${p.title}`);
  comment.le(vendor.length, 4);
  comment.ascii(vendor);
  comment.le(1, 4);
  comment.le(tag.length, 4);
  comment.bytes(tag);
  const out = new ByteSink();
  out.ascii("fLaC");
  const streamInfo = info.finish();
  out.bytes(blockHeader(0, false, streamInfo.length));
  out.bytes(streamInfo);
  const commentBytes = comment.toBytes();
  out.bytes(blockHeader(4, false, commentBytes.length));
  out.bytes(commentBytes);
  out.bytes(blockHeader(1, true, 64));
  out.bytes(new Uint8Array(64));
  for (const f of frames) out.bytes(f);
  return out.toBytes();
}
