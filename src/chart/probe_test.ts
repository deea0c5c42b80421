import assert from "node:assert/strict";
import { AUDIO_FORMATS, type AudioFormat, generateAudio } from "../upstream/mod.ts";
import { rig } from "../upstream/test_support.ts";
import { HEAD_BYTES } from "./archive_reader.ts";
import { OGG_TAIL_BYTES } from "./ogg.ts";
import { probeChartDuration } from "./probe.ts";
import { FILE_URL, fileRig, noise, zipArchive } from "./test_support.ts";

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.byteLength <= hay.byteLength; i++) {
    for (let j = 0; j < needle.byteLength; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

const url = (id: number) => `http://dev.invalid/files/chart-${id}.zip`;

/** `bytes=a-b` → [a, b]. */
function range(h: string | null): [number, number] {
  const m = /^bytes=(\d+)-(\d+)$/.exec(h ?? "");
  assert.ok(m, `expected a closed range, got ${h}`);
  return [Number(m[1]), Number(m[2])];
}

Deno.test("probeChartDuration reads every format, stored and deflated, from dev archives exactly", async (t) => {
  const { clock, api, up } = rig();
  for (const compress of [false, true]) {
    for (const [i, format] of AUDIO_FORMATS.entries()) {
      await t.step(`${format} ${compress ? "deflated" : "stored"}`, async () => {
        const id = 5000 + i + (compress ? 10 : 0);
        api.state.addChart({ id, audio: { format, durationSecs: 47.25 }, compress });
        const archive = api.state.archive(id)!;
        api.state.clearRequests();
        const r = await probeChartDuration(up, url(id), { clock });
        assert.equal(r.durationSecs, archive.audio.durationSecs);
        assert.equal(r.format, format);
        assert.equal(r.entry, `music.${format}`);
        assert.equal(r.sampleRate, archive.audio.sampleRate);
        assert.equal(r.compressed, compress);
        const log = api.state.requests;
        assert.equal(r.requests, log.length);
        assert.ok(log.every((q) => q.status === 206 && q.range !== null), "only ranged requests");
        const size = archive.bytes.byteLength;
        const received = log.reduce((n, q) => n + Math.min(range(q.range)[1], size - 1) - range(q.range)[0] + 1, 0);
        assert.equal(r.bytesDownloaded, received);
        assert.ok(r.bytesDownloaded <= 3 * HEAD_BYTES + OGG_TAIL_BYTES, `${r.bytesDownloaded} bytes`);
      });
    }
  }
});

Deno.test("probeChartDuration downloads a small fraction of large stored archives", async (t) => {
  const { clock, api, up } = rig();
  for (const format of ["wav", "mp3"] as const) {
    await t.step(format, async () => {
      const id = format === "wav" ? 6000 : 6003;
      api.state.addChart({ id, audio: { format, durationSecs: 120 }, compress: false });
      const size = api.state.archive(id)!.bytes.byteLength;
      const r = await probeChartDuration(up, url(id), { clock });
      assert.ok(size > 1_000_000 && r.bytesDownloaded < size / 50, `${r.bytesDownloaded} of ${size} bytes`);
    });
  }
});

Deno.test("probeChartDuration reads only the last 64 KiB of a stored Ogg entry", async () => {
  const ogg = generateAudio({ format: "ogg", durationSecs: 1800 });
  const zip = zipArchive([
    { name: "info.yml", data: "name: x\nmusic: song.ogg\nchart: chart.json\n", deflate: true },
    { name: "bg.png", data: noise(1_000_000) },
    { name: "song.ogg", data: ogg.bytes },
    { name: "chart.json", data: "{}" },
  ]);
  const { clock, api, up } = fileRig(zip);
  const r = await probeChartDuration(up, FILE_URL, { clock });
  assert.equal(r.durationSecs, 1800);
  const ranges = api.state.requests.map((q) => range(q.range));
  const musicStart = indexOf(zip, ogg.bytes.subarray(0, 64));
  const musicEnd = musicStart + ogg.bytes.byteLength;
  // Head (with info.yml), tail (end record and directory), local header with the first data bytes, entry tail.
  assert.equal(ranges.length, 4, JSON.stringify(ranges));
  assert.deepEqual(ranges[0], [0, HEAD_BYTES - 1]);
  assert.deepEqual(ranges[1], [zip.byteLength - HEAD_BYTES, zip.byteLength - 1]);
  assert.ok(ranges[2]![0] === musicStart - 30 - 8 && ranges[2]![1] < musicStart + HEAD_BYTES + 100);
  assert.deepEqual(ranges[3], [musicEnd - OGG_TAIL_BYTES, musicEnd - 1]);
  assert.ok(r.bytesDownloaded < OGG_TAIL_BYTES + 3 * HEAD_BYTES + 200, `${r.bytesDownloaded}`);
});

Deno.test("probeChartDuration works when the server ignores Range, reading the archive once", async (t) => {
  const { clock, api, up } = rig({ api: { ignoreRange: true } });
  for (const [i, format] of AUDIO_FORMATS.entries()) {
    for (const compress of [false, true]) {
      await t.step(`${format} ${compress ? "deflated" : "stored"}`, async () => {
        const id = 7000 + i + (compress ? 10 : 0);
        api.state.addChart({ id, audio: { format, durationSecs: 45 }, compress });
        const archive = api.state.archive(id)!;
        api.state.clearRequests();
        const r = await probeChartDuration(up, url(id), { clock });
        assert.equal(r.durationSecs, archive.audio.durationSecs);
        const size = archive.bytes.byteLength;
        const log = api.state.requests;
        assert.ok(log.every((q) => q.status === 200 && q.range !== null));
        // The first answer shows Range is ignored (only HEAD_BYTES are read of it); then one full read.
        assert.equal(r.bytesDownloaded, size <= HEAD_BYTES ? size : HEAD_BYTES + size);
        assert.equal(log.length, size <= HEAD_BYTES ? 1 : 2);
      });
    }
  }
});

Deno.test("probeChartDuration honours the per-chart ignoreRange switch and the download cap", async () => {
  const { clock, api, up } = rig();
  api.state.addChart({ id: 8000, audio: { format: "wav", durationSecs: 60 }, compress: false, ignoreRange: true });
  const size = api.state.archive(8000)!.bytes.byteLength;
  const ok = await probeChartDuration(up, url(8000), { clock, maxDownloadBytes: size + HEAD_BYTES });
  assert.equal(ok.durationSecs, 60);
  await assert.rejects(
    probeChartDuration(up, url(8000), { clock, maxDownloadBytes: size }),
    (e: Error & { kind?: string }) => e.kind === "too_large" && /ignores Range/.test(e.message),
  );
});

Deno.test("probeChartDuration streams a deflated Ogg entry and keeps only its tail", async () => {
  const ogg = generateAudio({ format: "ogg", durationSecs: 1800 });
  const zip = zipArchive([{ name: "info.yml", data: "music: a.ogg" }, {
    name: "a.ogg",
    data: ogg.bytes,
    deflate: true,
  }]);
  const { clock, up } = fileRig(zip);
  const r = await probeChartDuration(up, FILE_URL, { clock });
  assert.equal(r.durationSecs, 1800);
  assert.ok(r.compressed);
  assert.ok(r.bytesDownloaded <= zip.byteLength + HEAD_BYTES);
});

Deno.test("probeChartDuration finds chosen formats by content under any entry name", async (t) => {
  const cases: [AudioFormat, string][] = [["mp3", "track.mp3"], ["flac", "a/b/Song.FLAC"], ["wav", "weird.bin"]];
  for (const [format, name] of cases) {
    await t.step(name, async () => {
      const a = generateAudio({ format, durationSecs: 33 });
      const zip = zipArchive([{ name: "info.yml", data: `music: "${name}"` }, { name, data: a.bytes }]);
      const { clock, up } = fileRig(zip);
      const r = await probeChartDuration(up, FILE_URL, { clock });
      assert.deepEqual([r.format, r.entry, r.durationSecs], [format, name, a.durationSecs]);
    });
  }
});
