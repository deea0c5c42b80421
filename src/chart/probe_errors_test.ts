import assert from "node:assert/strict";
import { generateAudio } from "../upstream/mod.ts";
import { drive, rig } from "../upstream/test_support.ts";
import { ChartProbeError } from "./errors.ts";
import { probeChartDuration, type ProbeOptions } from "./probe.ts";
import { FILE_URL, fileRig, noise, zipArchive } from "./test_support.ts";

const ogg = generateAudio({ format: "ogg", durationSecs: 60 });
const good = zipArchive([{ name: "info.yml", data: "music: m.ogg" }, { name: "m.ogg", data: ogg.bytes }]);

async function failure(bytes: Uint8Array, o: ProbeOptions = {}, serve: { ignoreRange?: boolean } = {}) {
  const { clock, up } = fileRig(bytes, serve);
  try {
    await probeChartDuration(up, FILE_URL, { clock, ...o });
  } catch (e) {
    if (e instanceof ChartProbeError) return e;
    throw e;
  }
  throw new Error("expected a ChartProbeError");
}

function patch(bytes: Uint8Array, at: number, values: number[]): Uint8Array {
  const out = bytes.slice();
  out.set(values, at < 0 ? out.byteLength + at : at);
  return out;
}

Deno.test("probeChartDuration rejects files that are not zip archives", async (t) => {
  const cases: [string, Uint8Array][] = [
    ["HTML page", new TextEncoder().encode("<!doctype html><title>Not here</title>")],
    ["random bytes", noise(200_000)],
    ["empty file", new Uint8Array(0)],
    ["archive cut before its end record", good.subarray(0, good.byteLength - 10)],
  ];
  for (const [name, bytes] of cases) {
    await t.step(name, async () => {
      const e = await failure(bytes);
      assert.equal(e.kind, "not_zip");
      assert.match(e.message, /^Cannot read the chart archive: /);
    });
  }
});

Deno.test("probeChartDuration rejects damaged archives", async (t) => {
  const eocd = good.byteLength - 22;
  const cdOffset = new DataView(good.buffer).getUint32(eocd + 16, true);
  const cases: [string, Uint8Array, string][] = [
    ["directory offset past the end record", patch(good, eocd + 16, [0xff, 0xff, 0xff, 0x00]), "corrupt_zip"],
    ["directory signature damaged", patch(good, cdOffset, [0]), "corrupt_zip"],
    ["more entries than the directory holds", patch(good, eocd + 10, [50]), "corrupt_zip"],
    ["music local header damaged", patch(good, good.indexOf(0x50, 40), [0]), "corrupt_zip"],
    ["entry running past the end of the archive", oversized(good, cdOffset), "corrupt_zip"],
    ["no entries", zipArchive([]), "no_audio"],
    [
      "no audio entry",
      zipArchive([{ name: "info.yml", data: "music: a.mp3" }, { name: "a.txt", data: "x" }]),
      "no_audio",
    ],
    [
      "music that is not audio",
      zipArchive([{ name: "info.yml", data: "music: a.txt" }, { name: "a.txt", data: "x" }]),
      "unsupported",
    ],
    ["encrypted music", zipArchive([{ name: "m.ogg", data: ogg.bytes, flags: 1 }]), "unsupported"],
    ["bzip2 music", zipArchive([{ name: "m.ogg", data: ogg.bytes, method: 12 }]), "unsupported"],
    ["truncated audio", zipArchive([{ name: "m.ogg", data: ogg.bytes.subarray(0, 40) }]), "bad_audio"],
    ["invalid deflate data", zipArchive([{ name: "m.ogg", data: noise(5000), method: 8 }]), "corrupt_zip"],
  ];
  for (const [name, bytes, kind] of cases) {
    await t.step(name, async () => assert.equal((await failure(bytes)).kind, kind));
  }
});

/** `zip` with the sizes of its second entry (after `info.yml`) raised past the end of the archive. */
function oversized(zip: Uint8Array, cdOffset: number): Uint8Array {
  const second = cdOffset + 46 + "info.yml".length;
  return patch(patch(zip, second + 20, [0xff, 0xff, 0xff, 0x00]), second + 24, [0xff, 0xff, 0xff, 0x00]);
}

Deno.test("probeChartDuration refuses entries over the caps", async (t) => {
  await t.step("declared size over maxEntryBytes", async () => {
    const e = await failure(good, { maxEntryBytes: 1000 });
    assert.equal(e.kind, "too_large");
    assert.match(e.message, /"m\.ogg": \d+ bytes is over the entry cap of 1000/);
  });
  await t.step("a deflated entry inflating past its declared size", async () => {
    const zip = zipArchive([{ name: "m.ogg", data: ogg.bytes, deflate: true }]);
    const view = new DataView(zip.buffer);
    const cd = view.getUint32(zip.byteLength - 22 + 16, true);
    view.setUint32(cd + 24, ogg.bytes.byteLength - 1000, true); // declared uncompressed size
    assert.equal((await failure(zip)).kind, "corrupt_zip");
  });
  await t.step("a deflated entry ending before its declared size", async () => {
    const zip = zipArchive([{ name: "m.ogg", data: ogg.bytes, deflate: true }]);
    const view = new DataView(zip.buffer);
    const cd = view.getUint32(zip.byteLength - 22 + 16, true);
    view.setUint32(cd + 24, ogg.bytes.byteLength + 1000, true);
    assert.equal((await failure(zip)).kind, "corrupt_zip");
  });
  await t.step("maxDownloadBytes on a Range-honouring server", async () => {
    const long = generateAudio({ format: "ogg", durationSecs: 1800 }).bytes;
    const big = zipArchive([{ name: "m.ogg", data: long }, { name: "bg.png", data: noise(100_000) }]);
    const e = await failure(big, { maxDownloadBytes: 20_000 });
    assert.equal(e.kind, "too_large");
    assert.match(e.message, /would exceed the cap of 20000/);
  });
  await t.step("maxDownloadBytes on a server ignoring Range", async () => {
    const e = await failure(good, { maxDownloadBytes: good.byteLength }, { ignoreRange: true });
    assert.equal(e.kind, "too_large");
  });
});

Deno.test("probeChartDuration maps upstream failures", async (t) => {
  await t.step("404", async () => {
    const { clock, up } = rig();
    const e = await probeChartDuration(up, "http://dev.invalid/files/chart-1234567.zip", { clock }).catch((e) => e);
    assert.ok(e instanceof ChartProbeError);
    assert.equal(e.kind, "not_found");
    assert.match(e.message, /HTTP 404/);
  });
  await t.step("403 (not retried)", async () => {
    const { clock, api, up } = rig();
    api.state.setFault("files", { status: 403 });
    const e = await probeChartDuration(up, "http://dev.invalid/files/chart-1.zip", { clock }).catch((e) => e);
    assert.equal(e.kind, "upstream");
  });
  await t.step("a server hanging forever hits the budget", async () => {
    const { clock, api, up } = rig();
    api.state.setFault("files", { delayMs: 600_000 });
    const started = clock.monotonic();
    const p = probeChartDuration(up, "http://dev.invalid/files/chart-1.zip", { clock, budgetMs: 3000 });
    const e = await drive(clock, p, 250).catch((e) => e);
    assert.equal(e.kind, "timeout");
    assert.ok(clock.monotonic() - started <= 3100, `${clock.monotonic() - started} ms`);
  });
  await t.step("slow answers exhaust the budget across requests", async () => {
    const { clock, api, up } = rig();
    api.state.addChart({ id: 9000, audio: { format: "wav", durationSecs: 60 }, compress: false });
    api.state.setFault("files", { delayMs: 2000 });
    const p = probeChartDuration(up, "http://dev.invalid/files/chart-9000.zip", { clock, budgetMs: 3000 });
    const started = clock.monotonic();
    const e = await drive(clock, p, 250).catch((e) => e);
    assert.equal(e.kind, "timeout");
    assert.equal(api.state.requests[0]?.status, 206, "the first answer came after 2 s");
    assert.ok(clock.monotonic() - started <= 3100, "the second request got only the remaining second");
  });
  await t.step("abort", async () => {
    const { clock, up } = rig();
    const ctrl = new AbortController();
    ctrl.abort();
    const e = await probeChartDuration(up, "http://dev.invalid/files/chart-1.zip", { clock, signal: ctrl.signal })
      .catch((e) => e);
    assert.equal(e.kind, "aborted");
  });
});
