/**
 * WAV (RIFF/WAVE, and RF64) duration: walk the chunks from offset 12, read
 * `fmt ` for the byte rate, stop at `data`; duration = data bytes / byte rate.
 * Chunks such as `LIST` may come before `data` and are jumped over, never read.
 *
 * @module
 */

import { type AudioInfo, audioInfo } from "./audio_info.ts";
import { type ByteView, hasAscii, uint64LE, uintLE } from "./bytes.ts";
import { ChartProbeError } from "./errors.ts";

/** Chunks walked before giving up on finding `data`. */
const MAX_CHUNKS = 1000;

/** Whether `head` starts like a WAV file (`RIFF`/`RF64` ... `WAVE`). */
export function isWav(head: Uint8Array): boolean {
  return (hasAscii(head, 0, "RIFF") || hasAscii(head, 0, "RF64")) && hasAscii(head, 8, "WAVE");
}

/** Reads the duration of a WAV file. */
export function probeWav(view: ByteView): AudioInfo {
  const head = view.exact(0, 12, "the RIFF header");
  if (!isWav(head)) throw new ChartProbeError("bad_audio", "Cannot read the WAV header: no RIFF/WAVE signature");
  const rf64 = hasAscii(head, 0, "RF64");
  let ds64DataSize: number | null = null;
  let byteRate = 0;
  let sampleRate = 0;
  let at = 12;
  for (let i = 0; i < MAX_CHUNKS; i++) {
    if (at + 8 > view.size) break;
    const h = view.exact(at, 8, "a RIFF chunk header");
    const size = uintLE(h, 4, 4);
    const body = at + 8;
    if (hasAscii(h, 0, "ds64")) {
      // RF64: the real sizes are 64-bit fields of ds64 (RIFF size, data size, sample count).
      ds64DataSize = uint64LE(view.exact(body, 16, "the ds64 chunk"), 8);
    } else if (hasAscii(h, 0, "fmt ")) {
      if (size < 16) throw new ChartProbeError("bad_audio", `Cannot read the WAV format: fmt chunk of ${size} bytes`);
      const fmt = view.exact(body, 16, "the fmt chunk");
      sampleRate = uintLE(fmt, 4, 4);
      byteRate = uintLE(fmt, 8, 4);
    } else if (hasAscii(h, 0, "data")) {
      if (byteRate === 0) {
        throw new ChartProbeError("bad_audio", "Cannot read the WAV duration: no byte rate before data");
      }
      const available = view.size - body;
      let dataSize = rf64 && size === 0xffffffff && ds64DataSize !== null ? ds64DataSize : size;
      // Streaming writers leave 0 or 0xFFFFFFFF; a truncated file holds less than declared.
      if (dataSize === 0 || dataSize === 0xffffffff || dataSize > available) dataSize = available;
      return audioInfo("wav", dataSize / byteRate, sampleRate);
    }
    at = body + size + (size & 1);
  }
  throw new ChartProbeError("bad_audio", "Cannot read the WAV duration: no data chunk");
}
