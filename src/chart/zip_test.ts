import assert from "node:assert/strict";
import { zipSync } from "fflate";
import { ChartProbeError } from "./errors.ts";
import { errorKind, thrown, zipArchive } from "./test_support.ts";
import {
  EOCD_SIZE,
  findEndRecord,
  localDataOffset,
  needsZip64,
  parseCentralDirectory,
  parseZip64End,
  ZIP64_EOCD_SIZE,
} from "./zip.ts";

const enc = new TextEncoder();

function directory(zip: Uint8Array) {
  const rec = findEndRecord(zip, 0);
  assert.ok(rec);
  const loc = needsZip64(rec) ? parseZip64End(zip.subarray(rec.zip64At!, rec.zip64At! + ZIP64_EOCD_SIZE)) : rec;
  return parseCentralDirectory(zip.subarray(loc.offset, loc.offset + loc.size), loc.entries);
}

Deno.test("findEndRecord finds the record before an archive comment", async (t) => {
  for (const comment of ["", "hello", "x".repeat(0xffff), "PK\x05\x06 inside the comment"]) {
    await t.step(`comment of ${comment.length}`, () => {
      const zip = zipArchive([{ name: "a.txt", data: "a" }], { comment });
      const rec = findEndRecord(zip, 1000);
      assert.ok(rec);
      assert.equal(rec.at, 1000 + zip.byteLength - EOCD_SIZE - enc.encode(comment).byteLength);
      assert.equal(rec.entries, 1);
      assert.equal(rec.zip64At, null);
    });
  }
});

Deno.test("findEndRecord accepts trailing bytes after the comment and reports none without a record", () => {
  const zip = zipArchive([{ name: "a.txt", data: "a" }], { comment: "c" });
  const padded = new Uint8Array(zip.byteLength + 10);
  padded.set(zip);
  assert.equal(findEndRecord(padded, 0)?.entries, 1);
  assert.equal(findEndRecord(new Uint8Array(100), 0), null);
  assert.equal(findEndRecord(new Uint8Array(10), 0), null);
});

Deno.test("findEndRecord rejects split archives", () => {
  const zip = zipArchive([{ name: "a.txt", data: "a" }]);
  zip[zip.byteLength - EOCD_SIZE + 4] = 1; // this disk = 1, directory disk = 0
  assert.equal(errorKind(() => findEndRecord(zip, 0)), "unsupported");
});

Deno.test("parseCentralDirectory reads entries written by fflate and by the test writer", () => {
  const data = enc.encode("x".repeat(5000));
  const a = directory(zipSync({ "info.yml": [data, { level: 6 }], "dir/music.ogg": [data, { level: 0 }] }));
  assert.deepEqual(a.map((e) => [e.name, e.method, e.uncompressedSize]), [
    ["info.yml", 8, 5000],
    ["dir/music.ogg", 0, 5000],
  ]);
  assert.ok(a[0]!.compressedSize < 100);
  const b = directory(zipArchive([{ name: "音乐.mp3", data }, { name: "b", data, deflate: true }]));
  assert.equal(b[0]!.name, "音乐.mp3");
  assert.equal(b[1]!.localOffset, 30 + enc.encode("音乐.mp3").byteLength + 5000);
});

Deno.test("parseCentralDirectory takes sizes and offsets from ZIP64 extra fields", () => {
  const zip = zipArchive([{ name: "a", data: "aaaa" }, { name: "b", data: "bbbbbbbb" }], { zip64: true });
  const rec = findEndRecord(zip, 0);
  assert.ok(rec && needsZip64(rec));
  const entries = directory(zip);
  assert.deepEqual(entries.map((e) => [e.name, e.compressedSize, e.uncompressedSize, e.localOffset]), [
    ["a", 4, 4, 0],
    ["b", 8, 8, 30 + 1 + 20 + 4],
  ]);
});

Deno.test("zip parsers reject damaged structures", async (t) => {
  const zip = zipArchive([{ name: "a", data: "aaaa" }]);
  const rec = findEndRecord(zip, 0)!;
  const cd = zip.subarray(rec.offset, rec.offset + rec.size);
  await t.step("missing entry", () => assert.equal(errorKind(() => parseCentralDirectory(cd, 2)), "corrupt_zip"));
  await t.step("bad signature", () => {
    const bad = cd.slice();
    bad[0] = 0;
    assert.equal(errorKind(() => parseCentralDirectory(bad, 1)), "corrupt_zip");
  });
  await t.step(
    "name overruns",
    () => assert.equal(errorKind(() => parseCentralDirectory(cd.subarray(0, 46), 1)), "corrupt_zip"),
  );
  await t.step("saturated size without ZIP64 field", () => {
    const bad = cd.slice();
    new DataView(bad.buffer).setUint32(24, 0xffffffff, true);
    assert.equal(errorKind(() => parseCentralDirectory(bad, 1)), "corrupt_zip");
  });
  await t.step(
    "bad ZIP64 end record",
    () => assert.equal(errorKind(() => parseZip64End(new Uint8Array(56))), "corrupt_zip"),
  );
  await t.step("local header", () => {
    assert.equal(localDataOffset(zip, "a"), 31);
    const e = thrown(() => localDataOffset(zip.subarray(1), "a"));
    assert.ok(e instanceof ChartProbeError && e.kind === "corrupt_zip" && e.message.includes('"a"'));
  });
});
