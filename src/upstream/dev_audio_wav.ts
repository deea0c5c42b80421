/**
 * Development WAV writer: RIFF/WAVE, 16-bit PCM silence.
 *
 * Layout: `RIFF <size> WAVE`, `fmt ` (16 bytes: format 1, channels, rate,
 * byte rate, block align, 16 bits), a `LIST`/`INFO` chunk with an `INAM` title
 * (so a prober must walk chunks rather than assume offset 44), then `data`
 * holding `totalSamples × channels × 2` zero bytes.
 * Duration = data size / block align / sample rate.
 *
 * @module
 */

import { ByteSink } from "./dev_audio_bits.ts";

/** Parameters of {@link encodeWav}. */
export interface PcmParams {
  sampleRate: number;
  channels: number;
  /** Samples per channel. */
  totalSamples: number;
  /** Stored as the title tag. */
  title: string;
}

/** Encodes PCM silence as a WAV file. */
export function encodeWav(p: PcmParams): Uint8Array {
  const blockAlign = p.channels * 2;
  const dataSize = p.totalSamples * blockAlign;
  const title = new TextEncoder().encode(p.title);
  const titleSize = title.length + 1; // NUL-terminated
  const titlePadded = titleSize + (titleSize & 1);
  const listSize = 4 + 8 + titlePadded;
  const head = new ByteSink();
  head.ascii("RIFF");
  head.le(4 + (8 + 16) + (8 + listSize) + (8 + dataSize) + (dataSize & 1), 4);
  head.ascii("WAVE");
  head.ascii("fmt ");
  head.le(16, 4);
  head.le(1, 2); // PCM
  head.le(p.channels, 2);
  head.le(p.sampleRate, 4);
  head.le(p.sampleRate * blockAlign, 4);
  head.le(blockAlign, 2);
  head.le(16, 2);
  head.ascii("LIST");
  head.le(listSize, 4);
  head.ascii("INFO");
  head.ascii("INAM");
  head.le(titleSize, 4);
  head.bytes(title);
  for (let i = title.length; i < titlePadded; i++) head.byte(0);
  head.ascii("data");
  head.le(dataSize, 4);
  const header = head.toBytes();
  const out = new Uint8Array(header.length + dataSize + (dataSize & 1));
  out.set(header);
  return out;
}
