import assert from "node:assert/strict";
import { Zip, ZipDeflate, ZipPassThrough } from "fflate";
import { generateAudio } from "../upstream/mod.ts";
import { probeChartDuration } from "./probe.ts";
import { FILE_URL, fileRig, noise, zipArchive } from "./test_support.ts";

const mp3 = generateAudio({ format: "mp3", durationSecs: 20 });
const flac = generateAudio({ format: "flac", durationSecs: 40 });

async function probe(zip: Uint8Array) {
  const { clock, up } = fileRig(zip);
  return await probeChartDuration(up, FILE_URL, { clock });
}

/** A zip written by fflate's streaming writer: sizes in data descriptors after each entry (flag bit 3). */
function streamedZip(entries: [string, Uint8Array, boolean][]): Uint8Array {
  const parts: Uint8Array[] = [];
  const z = new Zip((err, chunk) => {
    if (err) throw err;
    parts.push(chunk);
  });
  for (const [name, data, deflate] of entries) {
    const f = deflate ? new ZipDeflate(name, { level: 6 }) : new ZipPassThrough(name);
    z.add(f);
    f.push(data, true);
  }
  z.end();
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

Deno.test("probeChartDuration falls back to the first audio entry", async (t) => {
  await t.step("without info.yml", async () => {
    const r = await probe(zipArchive([{ name: "chart.json", data: "{}" }, { name: "audio.mp3", data: mp3.bytes }]));
    assert.deepEqual([r.entry, r.durationSecs], ["audio.mp3", mp3.durationSecs]);
  });
  await t.step("info.yml naming a missing entry", async () => {
    const zip = zipArchive([
      { name: "info.yml", data: "music: gone.ogg\n" },
      { name: "bg.jpg", data: noise(100) },
      { name: "x.flac", data: flac.bytes, deflate: true },
    ]);
    assert.equal((await probe(zip)).entry, "x.flac");
  });
  await t.step("info.yml that is not YAML", async () => {
    const zip = zipArchive([{ name: "info.yml", data: "music: [unclosed\n\t: :" }, { name: "m.mp3", data: mp3.bytes }]);
    assert.equal((await probe(zip)).entry, "m.mp3");
  });
  await t.step("info.yml without music", async () => {
    const zip = zipArchive([{ name: "info.yml", data: "name: only\nmusic: 42\n" }, { name: "m.mp3", data: mp3.bytes }]);
    assert.equal((await probe(zip)).entry, "m.mp3");
  });
  await t.step("info.yml with an unsupported compression method", async () => {
    const zip = zipArchive([{ name: "info.yml", data: "music: m.mp3", method: 12 }, {
      name: "m.mp3",
      data: mp3.bytes,
    }]);
    assert.equal((await probe(zip)).entry, "m.mp3");
  });
});

Deno.test("probeChartDuration follows info.yml over directory order", async (t) => {
  await t.step("music named by info.yml, another audio file first", async () => {
    const zip = zipArchive([
      { name: "preview.mp3", data: mp3.bytes },
      { name: "info.yml", data: '\uFEFFname: "a: b"\nmusic: "Main Song.flac"\n', deflate: true },
      { name: "Main Song.flac", data: flac.bytes },
    ]);
    const r = await probe(zip);
    assert.deepEqual([r.entry, r.durationSecs], ["Main Song.flac", flac.durationSecs]);
  });
  await t.step("info.yml in a folder, music relative to it, case differing", async () => {
    const zip = zipArchive([
      { name: "pack/", data: "" },
      { name: "pack/info.yml", data: "music: ./SONG.FLAC" },
      { name: "pack/song.flac", data: flac.bytes, deflate: true },
    ]);
    assert.equal((await probe(zip)).entry, "pack/song.flac");
  });
});

Deno.test("probeChartDuration reads ZIP64 archives and archives with data descriptors", async (t) => {
  const entries = [
    { name: "info.yml", data: "music: m.flac\n" },
    { name: "m.flac", data: flac.bytes },
  ];
  for (const deflate of [false, true]) {
    await t.step(`ZIP64, ${deflate ? "deflated" : "stored"}`, async () => {
      const zip = zipArchive(entries.map((e) => ({ ...e, deflate })), { zip64: true, comment: "z" });
      assert.equal((await probe(zip)).durationSecs, flac.durationSecs);
    });
    await t.step(`data descriptors, ${deflate ? "deflated" : "stored"}`, async () => {
      const zip = zipArchive(entries.map((e) => ({ ...e, deflate })), { dataDescriptor: true });
      assert.equal((await probe(zip)).durationSecs, flac.durationSecs);
    });
  }
  await t.step("fflate streaming writer", async () => {
    const enc = new TextEncoder();
    const zip = streamedZip([["info.yml", enc.encode("music: m.mp3"), true], ["m.mp3", mp3.bytes, false]]);
    assert.equal((await probe(zip)).durationSecs, mp3.durationSecs);
  });
});

Deno.test("probeChartDuration finds the end record behind a 64 KiB comment", async () => {
  const zip = zipArchive([{ name: "m.flac", data: flac.bytes }], { comment: "c".repeat(0xffff) });
  const { clock, api, up } = fileRig(zip);
  const r = await probeChartDuration(up, FILE_URL, { clock });
  assert.equal(r.durationSecs, flac.durationSecs);
  assert.ok(api.state.requests.length <= 4);
});
