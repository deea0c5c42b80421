import assert from "node:assert/strict";
import { AUDIO_FORMATS, generateAudio } from "../upstream/mod.ts";
import { probeAudio } from "./audio.ts";
import { ByteView } from "./bytes.ts";
import { concat, errorKind, id3Tag } from "./test_support.ts";

Deno.test("probeAudio recognizes each format by its content, whatever the name", async (t) => {
  for (const format of AUDIO_FORMATS) {
    await t.step(format, () => {
      const a = generateAudio({ format, durationSecs: 12.5 });
      const info = probeAudio(ByteView.of(a.bytes), "music.bin");
      assert.deepEqual(info, { format, durationSecs: a.durationSecs, sampleRate: a.sampleRate });
    });
  }
});

Deno.test("probeAudio looks behind an ID3v2 tag for FLAC", () => {
  const a = generateAudio({ format: "flac", durationSecs: 3 });
  assert.equal(probeAudio(ByteView.of(concat(id3Tag(64), a.bytes))).format, "flac");
});

Deno.test("probeAudio tries MP3 for a .mp3 entry with leading junk, and rejects unknown data", () => {
  const a = generateAudio({ format: "mp3", durationSecs: 3, xing: false });
  const junk = concat(new Uint8Array(100), a.bytes.subarray(a.bytes.indexOf(0xff)));
  assert.equal(probeAudio(ByteView.of(junk), "Music.MP3").format, "mp3");
  assert.equal(errorKind(() => probeAudio(ByteView.of(junk), "music.m4a")), "unsupported");
  assert.equal(errorKind(() => probeAudio(ByteView.of(new Uint8Array(0)), "x.wav")), "unsupported");
});
