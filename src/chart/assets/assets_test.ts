import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { decode as decodePng, encode as encodePng } from "fast-png";
import jpeg from "jpeg-js";
import omggif from "omggif";
import { AUDIO_FORMATS, generateAudio } from "../../upstream/dev_audio.ts";
import { ChartParseError } from "../parse/errors.ts";
import { DEFAULT_LIMITS } from "../parse/limits.ts";
import { decodeAudio } from "./audio_decode.ts";
import { decodeGif, decodeTexture, PixelBudget } from "./images.ts";

const isParse = (kind: string, re: RegExp) => (e: unknown) =>
  e instanceof ChartParseError && e.kind === kind && re.test(e.message);

Deno.test("audio decoding: MP3, Ogg Vorbis, FLAC and WAV to interleaved PCM of the encoded length", async (t) => {
  for (const format of AUDIO_FORMATS) {
    await t.step(format, async () => {
      const a = generateAudio({ format, durationSecs: 3, channels: 2, sampleRate: 44100 });
      const clip = await decodeAudio(a.bytes, `music.${format}`, { maxSamples: 1 << 20 });
      equal(clip.sample_rate, 44100);
      equal(clip.channel_count, 2);
      const frames = clip.samples.length / 2;
      // mpg123 drops its 529-sample decoder delay (there is no LAME tag to say otherwise); the others are exact.
      ok(Math.abs(frames - a.totalSamples) <= (format === "mp3" ? 529 + 1152 : 0), `${frames} vs ${a.totalSamples}`);
      ok(clip.samples.every((s) => Math.abs(s) < 1e-3), "the dev audio is silent");
    });
  }
});

Deno.test("audio decoding: a real signal survives (WAV sine through the WAV decoder)", async () => {
  const rate = 8000, n = 800;
  const pcm = new Int16Array(n).map((_, i) => Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 16000));
  const wav = new Uint8Array(44 + n * 2);
  const d = new DataView(wav.buffer);
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => (wav[at + i] = c.charCodeAt(0)));
  ascii(0, "RIFF");
  d.setUint32(4, 36 + n * 2, true);
  ascii(8, "WAVEfmt ");
  d.setUint32(16, 16, true);
  d.setUint16(20, 1, true);
  d.setUint16(22, 1, true);
  d.setUint32(24, rate, true);
  d.setUint32(28, rate * 2, true);
  d.setUint16(32, 2, true);
  d.setUint16(34, 16, true);
  ascii(36, "data");
  d.setUint32(40, n * 2, true);
  wav.set(new Uint8Array(pcm.buffer), 44);
  const clip = await decodeAudio(wav, "tone.wav", { maxSamples: 10_000 });
  equal(clip.samples.length, n);
  ok(Math.abs(clip.samples[10]! - pcm[10]! / 32768) < 1e-4);
});

Deno.test("audio decoding: limits and bad input fail with a clear error before or while decoding", async () => {
  const a = generateAudio({ format: "flac", durationSecs: 10 });
  // The header says 10 s × 44.1 kHz: refused before anything is decoded.
  await rejects(
    decodeAudio(a.bytes, "big.flac", { maxSamples: 100_000 }),
    isParse("too_large", /big\.flac.*over 100000 samples/),
  );
  // Within the header check but over the interleaved bound (2 channels) while decoding.
  await rejects(decodeAudio(a.bytes, "big.flac", { maxSamples: 500_000 }), isParse("too_large", /over 500000 samples/));
  await rejects(
    decodeAudio(new Uint8Array(1000).fill(7), "noise.bin", { maxSamples: 1e6 }),
    isParse("unsupported", /unrecognized/),
  );
  const ogg = generateAudio({ format: "ogg", durationSecs: 1 }).bytes.slice();
  ogg.set(new TextEncoder().encode("OpusHead"), 28);
  await rejects(decodeAudio(ogg, "x.opus", { maxSamples: 1e6 }), ChartParseError);
  let calls = 0;
  const stop = () => {
    if (++calls > 1) throw new RangeError("budget");
  };
  const long = generateAudio({ format: "mp3", durationSecs: 20 });
  await rejects(decodeAudio(long.bytes, "m.mp3", { maxSamples: 1 << 22, check: stop }), /budget/);
});

const limits = DEFAULT_LIMITS;
const rgba = (w: number, h: number) => new Uint8Array(w * h * 4).map((_, i) => (i * 37) & 255);

Deno.test("textures: PNG (RGBA, grey, palette), JPEG and GIF become RGBA PNGs with the same pixels", () => {
  const px = rgba(3, 2);
  const back = (t: { data: Uint8Array }) => decodePng(t.data);
  const fromRgba = back(
    decodeTexture(
      encodePng({ width: 3, height: 2, data: px, channels: 4, depth: 8 }),
      "a.png",
      new PixelBudget(limits),
      limits,
    ),
  );
  deepEqual([fromRgba.width, fromRgba.height, fromRgba.channels, fromRgba.depth], [3, 2, 4, 8]);
  deepEqual(fromRgba.data, px);
  const grey = back(
    decodeTexture(
      encodePng({ width: 2, height: 1, data: new Uint8Array([0, 255]), channels: 1, depth: 8 }),
      "g.png",
      new PixelBudget(limits),
      limits,
    ),
  );
  deepEqual([...grey.data], [0, 0, 0, 255, 255, 255, 255, 255]);
  const pal = back(decodeTexture(
    encodePng({
      width: 2,
      height: 1,
      data: new Uint8Array([1, 0]),
      channels: 1,
      depth: 8,
      palette: [[10, 20, 30], [40, 50, 60]],
    }),
    "p.png",
    new PixelBudget(limits),
    limits,
  ));
  deepEqual([...pal.data], [40, 50, 60, 255, 10, 20, 30, 255]);
  const jpg = jpeg.encode({ width: 8, height: 8, data: new Uint8Array(256).fill(200) }, 90).data;
  const j = back(decodeTexture(new Uint8Array(jpg), "j.jpg", new PixelBudget(limits), limits));
  deepEqual([j.width, j.height], [8, 8]);
  ok(Math.abs(j.data[0]! - 200) < 4);
  const gifBuf = new Uint8Array(1024);
  const w = new (omggif as unknown as {
    GifWriter: new (
      b: Uint8Array,
      w: number,
      h: number,
      o: unknown,
    ) => { addFrame(x: number, y: number, w: number, h: number, px: number[], o: unknown): void; end(): number };
  }).GifWriter(gifBuf, 2, 2, { loop: 0 });
  const palette = [0xff0000, 0x00ff00];
  w.addFrame(0, 0, 2, 2, [0, 0, 0, 0], { palette, delay: 5 });
  w.addFrame(0, 0, 2, 2, [1, 1, 1, 1], { palette, delay: 1 });
  const gif = decodeGif(gifBuf.subarray(0, w.end()), "a.gif", new PixelBudget(limits), limits);
  deepEqual(gif.frames.map(([d]) => d), [50, 100], "delays in ms; a 10 ms delay plays as 100 ms, as browsers do");
  equal(gif.total_time, 150);
  deepEqual([...decodePng(gif.frames[1]![1].data).data.subarray(0, 4)], [0, 255, 0, 255]);
});

Deno.test("textures: huge dimensions are refused from the header, before decoding; junk is a clear error", () => {
  const png = encodePng({ width: 1, height: 1, data: new Uint8Array(4), channels: 4, depth: 8 });
  const huge = png.slice();
  new DataView(huge.buffer).setUint32(16, 100_000); // IHDR width 100000
  throws(
    () => decodeTexture(huge, "huge.png", new PixelBudget(limits), limits),
    isParse("too_large", /100000 × 1 pixels/),
  );
  const budget = new PixelBudget({ ...limits, maxTotalPixels: 10 });
  decodeTexture(encodePng({ width: 3, height: 3, data: rgba(3, 3), channels: 4, depth: 8 }), "a.png", budget, limits);
  throws(
    () =>
      decodeTexture(
        encodePng({ width: 2, height: 1, data: rgba(2, 1), channels: 4, depth: 8 }),
        "b.png",
        budget,
        limits,
      ),
    isParse("too_large", /exceed 10 pixels/),
  );
  throws(
    () => decodeTexture(png.slice(), "c.png", new PixelBudget({ ...limits, maxTotalPixels: 0 }), limits),
    isParse("too_large", /exceed 0 pixels/),
  );
  throws(
    () => decodeTexture(new Uint8Array([1, 2, 3]), "x.bmp", new PixelBudget(limits), limits),
    isParse("unsupported", /not a PNG, JPEG or GIF/),
  );
  throws(
    () => decodeTexture(png.subarray(0, 40), "cut.png", new PixelBudget(limits), limits),
    isParse("invalid", /cut\.png/),
  );
  throws(
    () => decodeTexture(new Uint8Array([0xff, 0xd8, 0, 0]), "cut.jpg", new PixelBudget(limits), limits),
    isParse("invalid", /cut\.jpg/),
  );
});
