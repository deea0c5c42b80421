import assert from "node:assert/strict";
import { generateAudio } from "../upstream/mod.ts";
import { ByteView, MissingBytes } from "./bytes.ts";
import { parseFrameHeader, probeMp3 } from "./mp3.ts";
import { concat, errorKind, id3Tag, thrown } from "./test_support.ts";

/** `count` frames with header bytes 1..3 = `h`; `first` is written into the first frame at `at`. */
function stream(h: [number, number, number], count: number, first?: { at: number; bytes: Uint8Array }): Uint8Array {
  const header = Uint8Array.of(0xff, ...h);
  const info = parseFrameHeader(header);
  assert.ok(info, "test header must be valid");
  const frame = new Uint8Array(info.length);
  frame.set(header);
  const frames = Array.from({ length: count }, () => frame.slice());
  if (first) frames[0]!.set(first.bytes, first.at);
  return concat(...frames);
}

function be32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

const MPEG1_L3_128K_44100_STEREO: [number, number, number] = [0xfb, 0x90, 0x00];

Deno.test("parseFrameHeader decodes versions, layers, rates and frame lengths", async (t) => {
  const cases: [string, number[], Partial<ReturnType<typeof parseFrameHeader>> | null][] = [
    ["MPEG-1 L3 128k 44.1k", [0xff, 0xfb, 0x90, 0x00], { version: 1, layer: 3, bitrate: 128000, length: 417 }],
    ["… padded", [0xff, 0xfb, 0x92, 0x00], { length: 418, samples: 1152 }],
    ["MPEG-1 L3 mono", [0xff, 0xfb, 0x90, 0xc0], { mono: true }],
    ["MPEG-1 L2 192k 48k", [0xff, 0xfd, 0xa4, 0x00], { layer: 2, sampleRate: 48000, length: 576, samples: 1152 }],
    ["MPEG-1 L1 32k 44.1k", [0xff, 0xff, 0x10, 0x00], { layer: 1, bitrate: 32000, length: 32, samples: 384 }],
    ["MPEG-2 L3 64k 22.05k", [0xff, 0xf3, 0x80, 0x00], { version: 2, sampleRate: 22050, length: 208, samples: 576 }],
    ["MPEG-2.5 L3 8k 8k", [0xff, 0xe3, 0x18, 0x00], { version: 2.5, sampleRate: 8000, bitrate: 8000, samples: 576 }],
    ["with CRC", [0xff, 0xfa, 0x90, 0x00], { crc: true }],
    ["reserved version", [0xff, 0xeb, 0x90, 0x00], null],
    ["reserved layer", [0xff, 0xf9, 0x90, 0x00], null],
    ["free format", [0xff, 0xfb, 0x00, 0x00], null],
    ["bad bit rate", [0xff, 0xfb, 0xf0, 0x00], null],
    ["reserved sample rate", [0xff, 0xfb, 0x9c, 0x00], null],
    ["no sync", [0xff, 0x7b, 0x90, 0x00], null],
    ["too short", [0xff, 0xfb, 0x90], null],
  ];
  for (const [name, bytes, expected] of cases) {
    await t.step(name, () => {
      const h = parseFrameHeader(Uint8Array.from(bytes));
      if (expected === null) return assert.equal(h, null);
      assert.ok(h);
      for (const [k, v] of Object.entries(expected)) assert.equal(h[k as keyof typeof h], v, k);
    });
  }
});

Deno.test("probeMp3 reads the Info frame count of generated files exactly", async (t) => {
  for (const [rate, channels, secs] of [[44100, 2, 30], [48000, 1, 95.5], [32000, 2, 120]] as const) {
    await t.step(`${rate} Hz × ${channels}, ${secs} s`, () => {
      const a = generateAudio({ format: "mp3", durationSecs: secs, sampleRate: rate, channels });
      assert.deepEqual(probeMp3(ByteView.of(a.bytes)), {
        format: "mp3",
        durationSecs: a.durationSecs,
        sampleRate: rate,
      });
    });
  }
});

Deno.test("probeMp3 estimates CBR files without an Info frame from their byte length", () => {
  const a = generateAudio({ format: "mp3", durationSecs: 61, xing: false });
  const d = probeMp3(ByteView.of(a.bytes)).durationSecs;
  assert.ok(Math.abs(d - a.durationSecs) < 0.001, `${d} vs ${a.durationSecs}`);
});

Deno.test("probeMp3 reads VBRI, MPEG-2 Xing and CRC-protected Xing headers", async (t) => {
  await t.step("VBRI", () => {
    const vbri = concat(new TextEncoder().encode("VBRI"), new Uint8Array(10), be32(5000));
    const file = stream(MPEG1_L3_128K_44100_STEREO, 3, { at: 36, bytes: vbri });
    assert.equal(probeMp3(ByteView.of(file)).durationSecs, (5000 * 1152) / 44100);
  });
  await t.step("MPEG-2 layer III stereo: Xing after 17 bytes of side information", () => {
    const xing = concat(new TextEncoder().encode("Xing"), be32(0xf), be32(777));
    const file = stream([0xf3, 0x80, 0x00], 3, { at: 4 + 17, bytes: xing });
    assert.equal(probeMp3(ByteView.of(file)).durationSecs, (777 * 576) / 22050);
  });
  await t.step("CRC word before the side information", () => {
    const xing = concat(new TextEncoder().encode("Info"), be32(1), be32(100));
    const file = stream([0xfa, 0x90, 0x00], 3, { at: 6 + 32, bytes: xing });
    assert.equal(probeMp3(ByteView.of(file)).durationSecs, (100 * 1152) / 44100);
  });
  await t.step("Xing without the frames flag falls back to CBR", () => {
    const xing = concat(new TextEncoder().encode("Xing"), be32(2), be32(999_999));
    const file = stream(MPEG1_L3_128K_44100_STEREO, 10, { at: 36, bytes: xing });
    assert.equal(probeMp3(ByteView.of(file)).durationSecs, (417 * 10 * 8) / 128000);
  });
});

Deno.test("probeMp3 skips tags and junk before the first real frame", () => {
  const fakeSync = Uint8Array.of(0xff, 0xfb, 0x90, 0x00, 1, 2, 3); // a header not followed by a frame
  const frames = stream(MPEG1_L3_128K_44100_STEREO, 20);
  const file = concat(id3Tag(50), id3Tag(20), new Uint8Array(1000), fakeSync, frames);
  assert.equal(probeMp3(ByteView.of(file)).durationSecs, (frames.byteLength * 8) / 128000);
});

Deno.test("probeMp3 jumps over a large ID3v2 tag without loading it", () => {
  const a = generateAudio({ format: "mp3", durationSecs: 10 });
  const file = concat(id3Tag(500_000), a.bytes);
  const view = new ByteView(file.byteLength);
  view.add(0, file.subarray(0, 8192));
  const need = thrown(() => probeMp3(view));
  assert.ok(need instanceof MissingBytes);
  assert.equal(need.start, 500_010);
  view.add(need.start, file.subarray(need.start, need.start + 8192));
  assert.equal(probeMp3(view).durationSecs, a.durationSecs);
  assert.equal(view.loadedBytes, 16384);
});

Deno.test("probeMp3 rejects files without frames", async (t) => {
  const cases: [string, Uint8Array][] = [
    ["zeros", new Uint8Array(100_000)],
    ["only a tag", id3Tag(100)],
    ["empty", new Uint8Array(0)],
  ];
  for (const [name, bytes] of cases) {
    await t.step(name, () => assert.equal(errorKind(() => probeMp3(ByteView.of(bytes))), "bad_audio"));
  }
});
