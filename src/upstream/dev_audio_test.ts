import { deepEqual, equal, ok } from "node:assert/strict";
import { type AudioSpec, encodedDurationSecs, generateAudio } from "./dev_audio.ts";
import { crc16, crc8, oggCrc32 } from "./dev_audio_bits.ts";

// Independent header readers: what a duration prober would do.

interface Probe {
  sampleRate: number;
  channels: number;
  samples: number;
}

function wavProbe(b: Uint8Array): Probe {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const tag = (o: number) => String.fromCharCode(...b.subarray(o, o + 4));
  equal(tag(0), "RIFF");
  equal(tag(8), "WAVE");
  equal(v.getUint32(4, true), b.length - 8);
  let fmt: { channels: number; rate: number; align: number } | undefined;
  for (let o = 12; o + 8 <= b.length;) {
    const size = v.getUint32(o + 4, true);
    if (tag(o) === "fmt ") {
      equal(v.getUint16(o + 8, true), 1, "PCM");
      fmt = { channels: v.getUint16(o + 10, true), rate: v.getUint32(o + 12, true), align: v.getUint16(o + 20, true) };
    }
    if (tag(o) === "data") {
      ok(fmt, "fmt before data");
      return { sampleRate: fmt.rate, channels: fmt.channels, samples: size / fmt.align };
    }
    o += 8 + size + (size & 1);
  }
  throw new Error("no data chunk");
}

function flacProbe(b: Uint8Array): Probe {
  equal(String.fromCharCode(...b.subarray(0, 4)), "fLaC");
  let o = 4;
  let info: Probe | undefined;
  for (let last = false; !last;) {
    last = (b[o]! & 0x80) !== 0;
    const type = b[o]! & 0x7f;
    const len = (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
    if (type === 0) {
      const s = b.subarray(o + 4, o + 4 + len);
      const sampleRate = (s[10]! << 12) | (s[11]! << 4) | (s[12]! >> 4);
      const channels = ((s[12]! >> 1) & 7) + 1;
      const samples = (s[13]! & 0x0f) * 2 ** 32 + ((s[14]! << 24) | (s[15]! << 16) | (s[16]! << 8) | s[17]!) >>> 0;
      info = { sampleRate, channels, samples };
    }
    o += 4 + len;
  }
  ok(info);
  // Walk every frame: check CRC-8 and CRC-16 and add up block sizes.
  let counted = 0;
  for (let frame = 0; o < b.length; frame++) {
    const start = o;
    equal(b[o], 0xff);
    equal(b[o + 1], 0xf8);
    const sizeCode = b[o + 2]! >> 4;
    const rateCode = b[o + 2]! & 0x0f;
    o += 4;
    const lead = b[o]!;
    const extra = lead < 0x80 ? 0 : lead < 0xe0 ? 1 : lead < 0xf0 ? 2 : 3;
    o += 1 + extra;
    let block = sizeCode === 12 ? 4096 : 0;
    if (sizeCode === 6) block = b[o++]! + 1;
    if (sizeCode === 7) block = ((b[o]! << 8) | b[o + 1]!) + 1, o += 2;
    if (rateCode === 13) o += 2;
    equal(crc8(b.subarray(start, o)), b[o], `frame ${frame} CRC-8`);
    o += 1 + info.channels * 3;
    equal(crc16(b.subarray(start, o)), (b[o]! << 8) | b[o + 1]!, `frame ${frame} CRC-16`);
    o += 2;
    ok(block > 0);
    counted += block;
  }
  equal(counted, info.samples);
  return info;
}

function oggProbe(b: Uint8Array): Probe {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let o = 0;
  let page = 0;
  let granule = -1;
  let info: { sampleRate: number; channels: number } | undefined;
  let eos = false;
  while (o < b.length) {
    equal(String.fromCharCode(...b.subarray(o, o + 4)), "OggS");
    const flags = b[o + 5]!;
    equal((flags & 2) !== 0, page === 0, "BOS only on the first page");
    ok(!eos, "no page after EOS");
    eos = (flags & 4) !== 0;
    granule = Number(v.getBigUint64(o + 6, true));
    equal(v.getUint32(o + 18, true), page, "page sequence");
    const segs = b[o + 26]!;
    let len = 27 + segs;
    for (let i = 0; i < segs; i++) len += b[o + 27 + i]!;
    const copy = b.slice(o, o + len);
    copy.fill(0, 22, 26);
    equal(oggCrc32(copy), v.getUint32(o + 22, true), `page ${page} CRC`);
    if (page === 0) {
      const p = o + 27 + segs;
      equal(b[p], 1);
      equal(String.fromCharCode(...b.subarray(p + 1, p + 7)), "vorbis");
      info = { channels: b[p + 11]!, sampleRate: v.getUint32(p + 12, true) };
    }
    o += len;
    page++;
  }
  ok(eos && info);
  return { ...info, samples: granule };
}

function mp3Probe(b: Uint8Array): Probe & { frames: number; xing: number | null } {
  equal(String.fromCharCode(...b.subarray(0, 3)), "ID3");
  const tagSize = 10 + ((b[6]! << 21) | (b[7]! << 14) | (b[8]! << 7) | b[9]!);
  const rates = [44100, 48000, 32000];
  let o = tagSize;
  let frames = 0;
  let xing: number | null = null;
  let sampleRate = 0;
  let channels = 0;
  while (o < b.length) {
    equal(b[o], 0xff);
    equal(b[o + 1], 0xfb, "MPEG-1 Layer III without CRC");
    equal(b[o + 2]! >> 4, 9, "128 kbps");
    sampleRate = rates[(b[o + 2]! >> 2) & 3]!;
    const pad = (b[o + 2]! >> 1) & 1;
    channels = b[o + 3]! >> 6 === 3 ? 1 : 2;
    const side = channels === 1 ? 17 : 32;
    if (frames === 0 && String.fromCharCode(...b.subarray(o + 4 + side, o + 8 + side)) === "Info") {
      const v = new DataView(b.buffer, b.byteOffset + o + 8 + side);
      equal(v.getUint32(0) & 1, 1, "frames field present");
      xing = v.getUint32(4);
      equal(v.getUint32(8), b.length - tagSize, "bytes field");
    } else frames++;
    o += Math.floor((144 * 128000) / sampleRate) + pad;
  }
  equal(o, b.length);
  return { sampleRate, channels, samples: frames * 1152, frames, xing };
}

const PROBES = { wav: wavProbe, flac: flacProbe, ogg: oggProbe, mp3: mp3Probe } as const;

Deno.test("dev audio CRCs match the standard check values", () => {
  const data = new TextEncoder().encode("123456789");
  equal(crc8(data), 0xf4);
  equal(crc16(data), 0xfee8);
  equal(oggCrc32(data), 0x89a1897f);
});

Deno.test("dev audio headers encode the intended duration", async (t) => {
  const specs: AudioSpec[] = [
    { format: "wav", durationSecs: 30 },
    { format: "wav", durationSecs: 1.25, sampleRate: 44100, channels: 2 },
    { format: "flac", durationSecs: 31 },
    { format: "flac", durationSecs: 0.5, sampleRate: 48000, channels: 1 },
    { format: "flac", durationSecs: 2, sampleRate: 12345 },
    { format: "ogg", durationSecs: 32 },
    { format: "ogg", durationSecs: 0.01 },
    { format: "ogg", durationSecs: 5.9, sampleRate: 22050, channels: 1 },
    { format: "mp3", durationSecs: 33 },
    { format: "mp3", durationSecs: 7.5, sampleRate: 48000, channels: 1 },
  ];
  for (const spec of specs) {
    await t.step(`${spec.format} ${spec.durationSecs}s ${spec.sampleRate ?? ""}`, () => {
      const audio = generateAudio(spec, "Title ✓");
      const probe = PROBES[spec.format](audio.bytes);
      equal(probe.sampleRate, audio.sampleRate);
      equal(probe.channels, audio.channels);
      equal(probe.samples, audio.totalSamples);
      equal(probe.samples / probe.sampleRate, encodedDurationSecs(spec));
      if (spec.format === "mp3") {
        ok(audio.durationSecs >= spec.durationSecs && audio.durationSecs - spec.durationSecs < 1152 / audio.sampleRate);
      } else equal(audio.totalSamples, Math.round(spec.durationSecs * audio.sampleRate));
    });
  }
});

Deno.test("dev audio MP3 Info frame counts the audio frames, and plain CBR has none", () => {
  const withInfo = mp3Probe(generateAudio({ format: "mp3", durationSecs: 10 }).bytes);
  equal(withInfo.xing, withInfo.frames);
  equal(withInfo.frames, Math.ceil((10 * 44100) / 1152));
  const plain = generateAudio({ format: "mp3", durationSecs: 10, xing: false });
  const p = mp3Probe(plain.bytes);
  equal(p.xing, null);
  equal(p.frames, withInfo.frames);
});

Deno.test("dev audio is deterministic and small when silent", () => {
  const a = generateAudio({ format: "ogg", durationSecs: 120 });
  const b = generateAudio({ format: "ogg", durationSecs: 120 });
  deepEqual(a.bytes, b.bytes);
  ok(generateAudio({ format: "flac", durationSecs: 120 }).bytes.length < 30_000);
  ok(a.bytes.length < 30_000);
});

Deno.test("dev audio rejects impossible specs", () => {
  for (
    const spec of [
      { format: "wav", durationSecs: 0 },
      { format: "ogg", durationSecs: Number.NaN },
      { format: "mp3", durationSecs: 1, sampleRate: 22050 },
    ] as AudioSpec[]
  ) {
    let thrown: unknown;
    try {
      generateAudio(spec);
    } catch (e) {
      thrown = e;
    }
    ok(thrown instanceof RangeError, JSON.stringify(spec));
  }
});
