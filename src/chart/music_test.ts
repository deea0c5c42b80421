import assert from "node:assert/strict";
import { findInfoEntry, findNamed, firstAudioEntry, musicFromInfo } from "./music.ts";
import type { ZipEntry } from "./zip.ts";

const entry = (name: string): ZipEntry => ({
  name,
  method: 0,
  flags: 0,
  compressedSize: 1,
  uncompressedSize: 1,
  localOffset: 0,
});

Deno.test("musicFromInfo reads the music key of Phira chart info", async (t) => {
  const cases: [string, string | null][] = [
    ["music: song.mp3\n", "song.mp3"],
    ['name: "A: B"\nmusic: "with space.ogg"\n', "with space.ogg"],
    ["\uFEFFmusic: bom.wav", "bom.wav"],
    ["music: a.mp3\nmusic: b.mp3\n", "b.mp3"],
    ["music: 42", null],
    ["music: ''", null],
    ["- a\n- b", null],
    ["just text", null],
    ["music: [unclosed", null],
    ["", null],
  ];
  for (const [text, expected] of cases) {
    await t.step(JSON.stringify(text), () => assert.equal(musicFromInfo(text), expected));
  }
});

Deno.test("findInfoEntry prefers the shallowest info.yml; findNamed resolves next to it", () => {
  const entries = ["x/y/info.yml", "pack/Info.YML", "pack/Song.ogg", "other.ogg"].map(entry);
  const info = findInfoEntry(entries)!;
  assert.equal(info.name, "pack/Info.YML");
  assert.equal(findNamed(entries, info, "song.OGG")?.name, "pack/Song.ogg");
  assert.equal(findNamed(entries, info, ".\\Song.ogg")?.name, "pack/Song.ogg");
  assert.equal(findNamed(entries, info, "missing.ogg"), null);
  assert.equal(findInfoEntry([entry("a.ogg")]), null);
});

Deno.test("firstAudioEntry skips folders and other files", () => {
  assert.equal(firstAudioEntry(["a.mp3/", "b.png", "c.OPUS", "d.mp3"].map(entry))?.name, "c.OPUS");
  assert.equal(firstAudioEntry(["b.png"].map(entry)), null);
});
