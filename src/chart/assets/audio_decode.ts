/**
 * Audio files of a chart (music, hit sounds) decoded to interleaved f32 PCM
 * -- the model's `AudioClip` (extended.md §5.5) -- through maintained decoders:
 * mpg123 (MP3), libvorbis (Ogg Vorbis) and libFLAC builds of
 * `@wasm-audio-decoders`, and `@audio/decode-wav` (WAV: PCM, float, A/µ-law,
 * IMA and MS ADPCM). The format is recognised by the duration prober, whose declared
 * length is checked against the sample limit before anything is decoded;
 * compressed data is fed in slices with a yield to the event loop between
 * them, so a long decode neither blocks other requests nor escapes the limits.
 *
 * @module
 */

import { FLACDecoder } from "@wasm-audio-decoders/flac";
import { OggVorbisDecoder } from "@wasm-audio-decoders/ogg-vorbis";
import { MPEGDecoder } from "mpg123-decoder";
import { decoder as wavDecoder } from "@audio/decode-wav";
import { probeAudio } from "../audio.ts";
import { ByteView, hasAscii } from "../bytes.ts";
import { ChartProbeError } from "../errors.ts";
import type { AudioClip } from "../model/types.ts";
import { ChartParseError, invalid, tooLarge } from "../parse/errors.ts";

/** Compressed bytes given to a decoder at once (MP3 64 KiB ~ 4 s of 128 kbps). */
const SLICE_BYTES = 64 * 1024;

/** Options of {@link decodeAudio}. */
export interface DecodeAudioOptions {
  /** Largest number of interleaved samples accepted. */
  maxSamples: number;
  /** Called between slices; throws to stop (the build's time budget). */
  check?: () => void;
}

interface Decoded {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
}

/** Interleaves decoder output into one growing buffer, bounded by `maxSamples`. */
class Interleaver {
  #buf: Float32Array;
  #len = 0;
  rate = 0;
  channels = 0;
  readonly #max: number;
  readonly #what: string;

  constructor(estimate: number, max: number, what: string) {
    this.#buf = new Float32Array(Math.min(Math.max(estimate, 4096), max));
    this.#max = max;
    this.#what = what;
  }

  push(d: Decoded): void {
    if (d.samplesDecoded === 0) return;
    const ch = d.channelData.length;
    if (this.channels === 0) [this.channels, this.rate] = [ch, d.sampleRate];
    else if (ch !== this.channels || d.sampleRate !== this.rate) {
      invalid(`Cannot decode ${this.#what}: the stream changes its channels or sample rate`);
    }
    const n = d.samplesDecoded * ch;
    const need = this.#len + n;
    if (need > this.#max) tooLarge(`Cannot decode ${this.#what}: over ${this.#max} samples`);
    if (need > this.#buf.length) {
      const grown = new Float32Array(Math.min(this.#max, Math.max(need, Math.ceil(this.#buf.length * 1.5))));
      grown.set(this.#buf.subarray(0, this.#len));
      this.#buf = grown;
    }
    const out = this.#buf;
    for (let c = 0; c < ch; c++) {
      const src = d.channelData[c]!;
      for (let i = 0, j = this.#len + c; i < d.samplesDecoded; i++, j += ch) out[j] = src[i]!;
    }
    this.#len = need;
  }

  finish(): AudioClip {
    if (this.#len === 0) invalid(`Cannot decode ${this.#what}: no audio data decoded`);
    // A view when little is unused (the usual case: the estimate from the header is close), else a tight copy.
    const samples = this.#len >= this.#buf.length * 0.95
      ? this.#buf.subarray(0, this.#len)
      : this.#buf.slice(0, this.#len);
    return { samples, sample_rate: this.rate, channel_count: this.channels };
  }
}

const yieldToEventLoop = () => new Promise<void>((r) => setTimeout(r, 0));

/** Decodes an audio file (`name` is the archive entry, for messages and headerless MP3). */
export async function decodeAudio(bytes: Uint8Array, name: string, o: DecodeAudioOptions): Promise<AudioClip> {
  const what = JSON.stringify(name);
  let info;
  try {
    info = probeAudio(ByteView.of(bytes), name);
  } catch (e) {
    if (e instanceof ChartProbeError) {
      throw new ChartParseError(
        e.kind === "unsupported" ? "unsupported" : "invalid",
        `Cannot decode ${what}: ${e.message}`,
      );
    }
    throw e;
  }
  const frames = Math.ceil(info.durationSecs * info.sampleRate);
  if (frames > o.maxSamples) {
    tooLarge(
      `Cannot decode ${what}: ${
        info.durationSecs.toFixed(1)
      } s at ${info.sampleRate} Hz is over ${o.maxSamples} samples`,
    );
  }
  if (info.format === "ogg" && !isVorbis(bytes)) {
    throw new ChartParseError("unsupported", `Cannot decode ${what}: only Vorbis is supported in Ogg (Opus is not)`);
  }
  const decoder = info.format === "wav"
    ? new WavDecoder()
    : info.format === "mp3"
    ? new MPEGDecoder()
    : info.format === "ogg"
    ? new OggVorbisDecoder()
    : new FLACDecoder();
  await decoder.ready;
  const out = new Interleaver(frames * 2, o.maxSamples, what);
  try {
    for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
      o.check?.();
      out.push(await decoder.decode(bytes.subarray(at, at + SLICE_BYTES)));
      await yieldToEventLoop();
    }
    if ("flush" in decoder) out.push(await decoder.flush());
  } catch (e) {
    if (e instanceof ChartParseError) throw e;
    invalid(`Cannot decode ${what}: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    decoder.free();
  }
  return out.finish();
}

function isVorbis(bytes: Uint8Array): boolean {
  // The first page's packet starts at 27 + segment count: "\x01vorbis" for Vorbis, "OpusHead" for Opus.
  const at = 27 + (bytes[26] ?? 0);
  return bytes[at] === 1 && hasAscii(bytes, at + 1, "vorbis");
}

/** `@audio/decode-wav`'s streaming decoder behind the same face as the wasm decoders. */
class WavDecoder {
  readonly ready: Promise<void> = Promise.resolve();
  readonly #d = wavDecoder();

  decode(chunk: Uint8Array): Decoded {
    return counted(this.#d.decode(chunk));
  }

  flush(): Promise<Decoded> {
    return Promise.resolve(counted(this.#d.flush()));
  }

  free(): void {
    this.#d.free();
  }
}

function counted(d: { channelData: Float32Array[]; sampleRate: number }): Decoded {
  return { ...d, samplesDecoded: d.channelData[0]?.length ?? 0 };
}
