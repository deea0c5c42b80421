import assert from "node:assert/strict";
import { generateAudio } from "../upstream/mod.ts";
import { ByteView } from "./bytes.ts";
import { probeFlac } from "./flac.ts";
import { concat, errorKind, id3Tag } from "./test_support.ts";

Deno.test("probeFlac reads STREAMINFO of generated files exactly", async (t) => {
  for (const [rate, channels, secs] of [[44100, 2, 30], [48000, 1, 77.7], [96000, 2, 120], [22050, 1, 0.01]] as const) {
    await t.step(`${rate} Hz × ${channels}, ${secs} s`, () => {
      const a = generateAudio({ format: "flac", durationSecs: secs, sampleRate: rate, channels });
      assert.deepEqual(probeFlac(ByteView.of(a.bytes)), {
        format: "flac",
        durationSecs: a.durationSecs,
        sampleRate: rate,
      });
    });
  }
});

Deno.test("probeFlac skips an ID3v2 prefix", () => {
  const a = generateAudio({ format: "flac", durationSecs: 42 });
  const file = concat(id3Tag(300_000), a.bytes);
  assert.equal(probeFlac(ByteView.of(file)).durationSecs, a.durationSecs);
});

/** `fLaC` and a last STREAMINFO block with the given fields. */
function flacHead(rate: number, channels: number, total: number, type = 0): Uint8Array {
  const b = new Uint8Array(8 + 34);
  b.set([0x66, 0x4c, 0x61, 0x43, 0x80 | type, 0, 0, 34]);
  const si = b.subarray(8);
  si[10] = rate >> 12;
  si[11] = (rate >> 4) & 0xff;
  si[12] = ((rate & 0xf) << 4) | ((channels - 1) << 1); // 16 bits per sample: (15 >> 4) = 0 here
  si[13] = 0xf0 | Math.floor(total / 2 ** 32);
  new DataView(si.buffer, si.byteOffset).setUint32(14, total % 2 ** 32);
  return b;
}

Deno.test("probeFlac reads 36-bit sample counts", () => {
  const total = 2 ** 32 + 192000;
  assert.deepEqual(probeFlac(ByteView.of(flacHead(192000, 2, total))), {
    format: "flac",
    durationSecs: total / 192000,
    sampleRate: 192000,
  });
});

Deno.test("probeFlac rejects malformed or unknown-length streams", async (t) => {
  const cases: [string, Uint8Array, string][] = [
    ["no signature", new TextEncoder().encode("fLaX".padEnd(42, "\0")), "bad_audio"],
    ["truncated", flacHead(44100, 2, 1000).subarray(0, 30), "bad_audio"],
    ["first block not STREAMINFO", flacHead(44100, 2, 1000, 4), "bad_audio"],
    ["sample rate 0", flacHead(0, 2, 1000), "bad_audio"],
    ["unknown sample count", flacHead(44100, 2, 0), "bad_audio"],
    ["longer than a day", flacHead(8000, 1, 8000 * 86401), "too_large"],
  ];
  for (const [name, bytes, expected] of cases) {
    await t.step(name, () => assert.equal(errorKind(() => probeFlac(ByteView.of(bytes))), expected));
  }
});
