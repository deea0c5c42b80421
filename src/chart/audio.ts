/**
 * Recognizes the audio format from the first bytes (the entry name is only a
 * hint for headerless MP3 streams) and runs the matching probe.
 *
 * @module
 */

import type { AudioInfo } from "./audio_info.ts";
import { type ByteView, hasAscii } from "./bytes.ts";
import { ChartProbeError } from "./errors.ts";
import { probeFlac } from "./flac.ts";
import { skipId3v2 } from "./id3.ts";
import { probeMp3 } from "./mp3.ts";
import { probeOgg } from "./ogg.ts";
import { isWav, probeWav } from "./wav.ts";

/** File extensions taken for audio when `info.yml` does not name the music. */
export const AUDIO_EXTENSIONS: readonly string[] = [".mp3", ".ogg", ".oga", ".opus", ".flac", ".wav"];

/** Reads the duration of an audio file; `name` (the zip entry name) helps only for MP3 without a tag. */
export function probeAudio(view: ByteView, name = ""): AudioInfo {
  const head = view.upTo(0, 12);
  if (isWav(head)) return probeWav(view);
  if (hasAscii(head, 0, "OggS")) return probeOgg(view);
  if (hasAscii(head, 0, "fLaC")) return probeFlac(view);
  if (hasAscii(head, 0, "ID3")) {
    // Both FLAC and MP3 may start with an ID3v2 tag: look behind it.
    const after = skipId3v2(view);
    return hasAscii(view.upTo(after, 4), 0, "fLaC") ? probeFlac(view) : probeMp3(view);
  }
  if (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0) return probeMp3(view);
  if (name.toLowerCase().endsWith(".mp3")) return probeMp3(view);
  throw new ChartProbeError("unsupported", `Cannot probe ${JSON.stringify(name)}: unrecognized audio format`);
}
