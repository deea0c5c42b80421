/**
 * FLAC duration: `fLaC` (after an optional ID3v2 tag), then the mandatory
 * first metadata block STREAMINFO; duration = total samples (36 bits) / sample
 * rate (20 bits). A total of 0 means "unknown" and is reported as such.
 *
 * @module
 */

import { type AudioInfo, audioInfo } from "./audio_info.ts";
import { type ByteView, hasAscii, uintBE } from "./bytes.ts";
import { ChartProbeError } from "./errors.ts";
import { skipId3v2 } from "./id3.ts";

/** Reads the duration of a FLAC file (native FLAC, not FLAC in Ogg). */
export function probeFlac(view: ByteView): AudioInfo {
  const at = skipId3v2(view);
  const b = view.exact(at, 8 + 34, "the FLAC STREAMINFO block");
  if (!hasAscii(b, 0, "fLaC")) throw new ChartProbeError("bad_audio", "Cannot read the FLAC header: no fLaC signature");
  const type = b[4]! & 0x7f;
  const length = uintBE(b, 5, 3);
  if (type !== 0 || length < 34) {
    throw new ChartProbeError("bad_audio", `Cannot read the FLAC header: first block is type ${type}, not STREAMINFO`);
  }
  const si = 8;
  const sampleRate = (b[si + 10]! << 12) | (b[si + 11]! << 4) | (b[si + 12]! >> 4);
  const totalSamples = (b[si + 13]! & 0x0f) * 2 ** 32 + uintBE(b, si + 14, 4);
  if (sampleRate === 0) throw new ChartProbeError("bad_audio", "Cannot read the FLAC duration: sample rate is 0");
  if (totalSamples === 0) {
    throw new ChartProbeError("bad_audio", "Cannot read the FLAC duration: STREAMINFO leaves the sample count unset");
  }
  return audioInfo("flac", totalSamples / sampleRate, sampleRate);
}
