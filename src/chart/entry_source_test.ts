import assert from "node:assert/strict";
import { ArchiveReader } from "./archive_reader.ts";
import { ByteView } from "./bytes.ts";
import { readDirectory } from "./directory.ts";
import { openEntry } from "./entry_source.ts";
import { FILE_URL, fileRig, noise, zipArchive } from "./test_support.ts";

const data = noise(300_000, 9).map((b, i) => (i % 3 === 0 ? 0 : b)); // compressible a little

async function open(deflate: boolean) {
  const zip = zipArchive([{ name: "pad", data: noise(50_000) }, { name: "d.bin", data, deflate }]);
  const { clock, up } = fileRig(zip);
  const reader = await ArchiveReader.open({
    upstream: up,
    url: FILE_URL,
    clock,
    deadline: 10_000,
    budgetMs: 10_000,
    signal: undefined,
    maxDownloadBytes: 10 << 20,
  });
  const entry = (await readDirectory(reader)).find((e) => e.name === "d.bin")!;
  return { reader, source: await openEntry(reader, entry, { maxEntryBytes: 1 << 20 }) };
}

Deno.test("stored entries fill exactly the asked range plus read-ahead", async () => {
  const { reader, source } = await open(false);
  const view = new ByteView(source.size);
  const before = reader.bytesDownloaded;
  await source.fill(view, 200_000, 100);
  assert.deepEqual([...view.upTo(200_000, 100)], [...data.subarray(200_000, 200_100)]);
  assert.ok(view.has(200_000, 8192), "read-ahead");
  assert.equal(reader.bytesDownloaded - before, 8192);
  await source.fill(view, source.size - 10, 100);
  assert.deepEqual([...view.upTo(source.size - 10, 100)], [...data.subarray(-10)]);
});

Deno.test("deflated entries inflate forwards and restart for a range already passed", async () => {
  const { reader, source } = await open(true);
  const view = new ByteView(source.size);
  await source.fill(view, 250_000, 70_000); // clipped to the end
  assert.deepEqual([...view.upTo(250_000, 50_000)].slice(-5), [...data.subarray(-5)]);
  assert.ok(!view.has(0, 10), "bytes before the asked range are not kept");
  const requests = reader.requests;
  await source.fill(view, 0, 10);
  assert.deepEqual([...view.upTo(0, 10)], [...data.subarray(0, 10)]);
  assert.equal(reader.requests, requests, "the first compressed bytes are still cached by the reader");
});

Deno.test("openEntry checks sizes against the entry cap before any data is read", async () => {
  const zip = zipArchive([{ name: "d.bin", data }]);
  const { clock, up } = fileRig(zip);
  const reader = await ArchiveReader.open({
    upstream: up,
    url: FILE_URL,
    clock,
    deadline: 10_000,
    budgetMs: 10_000,
    signal: undefined,
    maxDownloadBytes: 10 << 20,
  });
  const [entry] = await readDirectory(reader);
  const requests = reader.requests;
  await assert.rejects(openEntry(reader, entry!, { maxEntryBytes: 1000 }), /over the entry cap of 1000/);
  assert.equal(reader.requests, requests);
});
