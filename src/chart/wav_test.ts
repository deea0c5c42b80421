import assert from "node:assert/strict";
import { generateAudio } from "../upstream/mod.ts";
import { ByteView, MissingBytes } from "./bytes.ts";
import { errorKind, thrown } from "./test_support.ts";
import { probeWav } from "./wav.ts";

function chunk(id: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + body.byteLength + (body.byteLength & 1));
  out.set(new TextEncoder().encode(id));
  new DataView(out.buffer).setUint32(4, body.byteLength, true);
  out.set(body, 8);
  return out;
}

function fmt(rate: number, channels: number, bits = 16): Uint8Array {
  const b = new Uint8Array(16);
  const v = new DataView(b.buffer);
  v.setUint16(0, 1, true);
  v.setUint16(2, channels, true);
  v.setUint32(4, rate, true);
  v.setUint32(8, (rate * channels * bits) / 8, true);
  v.setUint16(12, (channels * bits) / 8, true);
  v.setUint16(14, bits, true);
  return b;
}

function riff(magic: string, ...chunks: Uint8Array[]): Uint8Array {
  const body = chunks.reduce((n, c) => n + c.byteLength, 4);
  const out = new Uint8Array(8 + body);
  out.set(new TextEncoder().encode(magic));
  new DataView(out.buffer).setUint32(4, magic === "RF64" ? 0xffffffff : body, true);
  out.set(new TextEncoder().encode("WAVE"), 8);
  let at = 12;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

Deno.test("probeWav reads generated files of several rates and channel counts exactly", async (t) => {
  for (const [rate, channels, secs] of [[22050, 1, 30], [44100, 2, 61.25], [48000, 1, 90.5], [8000, 2, 0.5]] as const) {
    await t.step(`${rate} Hz × ${channels}`, () => {
      const a = generateAudio({ format: "wav", durationSecs: secs, sampleRate: rate, channels });
      const info = probeWav(ByteView.of(a.bytes));
      assert.deepEqual(info, { format: "wav", durationSecs: a.durationSecs, sampleRate: rate });
    });
  }
});

Deno.test("probeWav jumps over chunks before data without reading them", () => {
  const list = chunk("LIST", new Uint8Array(100_001)); // odd size: padded to even
  const data = chunk("data", new Uint8Array(44100 * 2 * 3));
  const file = riff("RIFF", chunk("fmt ", fmt(44100, 1)), list, data);
  const view = new ByteView(file.byteLength);
  view.add(0, file.subarray(0, 64));
  const need = thrown(() => probeWav(view));
  assert.ok(need instanceof MissingBytes);
  assert.equal(need.start, 12 + 24 + 8 + 100_002); // the data chunk header, right after the padded LIST
  view.add(need.start, file.subarray(need.start, need.start + 8));
  assert.equal(probeWav(view).durationSecs, 3);
  assert.ok(view.loadedBytes < 100, "the LIST body was never loaded");
});

Deno.test("probeWav reads RF64 sizes from ds64", () => {
  const ds64 = new Uint8Array(28);
  new DataView(ds64.buffer).setUint32(8, 48000 * 4 * 2, true); // data size (low 32 bits)
  const data = chunk("data", new Uint8Array(48000 * 4 * 2));
  new DataView(data.buffer).setUint32(4, 0xffffffff, true);
  const file = riff("RF64", chunk("ds64", ds64), chunk("fmt ", fmt(48000, 2)), data.subarray(0, 8), data.subarray(8));
  assert.equal(probeWav(ByteView.of(file)).durationSecs, 2);
});

Deno.test("probeWav uses the bytes present for streaming or truncated data sizes", async (t) => {
  for (const size of [0, 0xffffffff, 10_000_000]) {
    await t.step(`declared ${size}`, () => {
      const data = chunk("data", new Uint8Array(22050 * 2));
      new DataView(data.buffer).setUint32(4, size, true);
      assert.equal(probeWav(ByteView.of(riff("RIFF", chunk("fmt ", fmt(22050, 1)), data))).durationSecs, 1);
    });
  }
});

Deno.test("probeWav rejects malformed files", async (t) => {
  const good = generateAudio({ format: "wav", durationSecs: 1 }).bytes;
  const cases: [string, Uint8Array, string][] = [
    ["too short", good.subarray(0, 8), "bad_audio"],
    ["not RIFF", new TextEncoder().encode("RIFX\0\0\0\0WAVEfmt "), "bad_audio"],
    ["no data chunk", riff("RIFF", chunk("fmt ", fmt(22050, 1))), "bad_audio"],
    ["data before fmt", riff("RIFF", chunk("data", new Uint8Array(4)), chunk("fmt ", fmt(22050, 1))), "bad_audio"],
    ["short fmt", riff("RIFF", chunk("fmt ", new Uint8Array(8)), chunk("data", new Uint8Array(4))), "bad_audio"],
    ["empty data", riff("RIFF", chunk("fmt ", fmt(22050, 1)), chunk("data", new Uint8Array(0))), "bad_audio"],
    ["truncated chunk header", good.subarray(0, 40), "bad_audio"],
  ];
  for (const [name, bytes, expected] of cases) {
    await t.step(name, () => assert.equal(errorKind(() => probeWav(ByteView.of(bytes))), expected));
  }
});
