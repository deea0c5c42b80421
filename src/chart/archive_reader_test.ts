import assert from "node:assert/strict";
import { rig } from "../upstream/test_support.ts";
import { ArchiveReader, HEAD_BYTES, type ReaderContext } from "./archive_reader.ts";
import { ChartProbeError } from "./errors.ts";
import { FILE_URL, noise } from "./test_support.ts";

const file = noise(100_000, 3);

/** The first `n` bytes as a plain array (reads may return more than asked for). */
function first(b: Uint8Array, n: number): number[] {
  return [...b.subarray(0, n)];
}

/** A rig whose file route answers with `respond(start, end)` for `bytes=a-b` and `bytes=-n` requests. */
function custom(respond: (req: { start: number; end: number } | null) => Response) {
  const r = rig();
  r.api.state.setFault("files", {
    hook: (req) => {
      const h = req.headers.get("range") ?? "";
      const m = /^bytes=(\d*)-(\d*)$/.exec(h);
      if (!m) return respond(null);
      const start = m[1] === "" ? file.byteLength - Number(m[2]) : Number(m[1]);
      const end = m[1] === "" ? file.byteLength - 1 : Math.min(Number(m[2]), file.byteLength - 1);
      return respond({ start, end });
    },
  });
  const ctx = (o: Partial<ReaderContext> = {}): ReaderContext => ({
    upstream: r.up,
    url: FILE_URL,
    clock: r.clock,
    deadline: 10_000,
    budgetMs: 10_000,
    signal: undefined,
    maxDownloadBytes: 1 << 20,
    ...o,
  });
  return { ...r, ctx };
}

function partial(start: number, end: number, total: string): Response {
  return new Response(file.slice(start, end + 1), {
    status: 206,
    headers: { "content-range": `bytes ${start}-${end}/${total}` },
  });
}

/** A body without Content-Length (streamed in chunks). */
function chunked(bytes: Uint8Array): Response {
  return new Response(
    new ReadableStream({
      start(c) {
        for (let i = 0; i < bytes.byteLength; i += 10_000) c.enqueue(bytes.slice(i, i + 10_000));
        c.close();
      },
    }),
    { status: 200 },
  );
}

Deno.test("ArchiveReader learns the size from a suffix request when Content-Range has no total", async () => {
  const { ctx } = custom((r) => partial(r!.start, r!.end, "*"));
  const reader = await ArchiveReader.open(ctx());
  assert.equal(reader.size, file.byteLength);
  assert.equal(reader.requests, 2);
  assert.deepEqual(first(await reader.read(file.byteLength - 100, 100), 100), [...file.slice(-100)]);
  assert.equal(reader.requests, 2, "the tail was kept");
});

Deno.test("ArchiveReader reads a server ignoring Range without Content-Length once, within the cap", async () => {
  const { ctx } = custom(() => chunked(file));
  const reader = await ArchiveReader.open(ctx());
  assert.equal(reader.size, file.byteLength);
  assert.ok(reader.rangeIgnored);
  assert.deepEqual(first(await reader.read(50_000, 10), 10), [...file.slice(50_000, 50_010)]);
  assert.equal(reader.requests, 2);
  const capped = custom(() => chunked(file));
  const e = await ArchiveReader.open(capped.ctx({ maxDownloadBytes: 50_000 })).catch((e) => e);
  assert.ok(e instanceof ChartProbeError && e.kind === "too_large", String(e));
});

Deno.test("ArchiveReader switches to one full read when a later answer ignores Range", async () => {
  let n = 0;
  const { ctx } = custom((r) => (n++ === 0 ? partial(r!.start, r!.end, String(file.byteLength)) : chunked(file)));
  const reader = await ArchiveReader.open(ctx());
  // Answered with 200: the prefix up to byte 60009 was received, then sliced.
  assert.deepEqual(first(await reader.read(60_000, 10), 10), [...file.slice(60_000, 60_010)]);
  assert.ok(reader.rangeIgnored);
  assert.deepEqual(first(await reader.read(90_000, 10), 10), [...file.slice(90_000, 90_010)]);
  assert.equal(reader.requests, 3);
  assert.equal(reader.bytesDownloaded, HEAD_BYTES + 60_010 + file.byteLength);
  assert.deepEqual(first(await reader.read(10, 10), 10), [...file.slice(10, 20)]);
  assert.equal(reader.requests, 3, "served from memory");
});

Deno.test("ArchiveReader rejects answers shorter than the size it announced", async () => {
  const { ctx } = custom((r) => partial(r!.start, Math.min(r!.end, 20_000), String(file.byteLength)));
  const reader = await ArchiveReader.open(ctx());
  const e = await reader.read(30_000, 100).catch((e) => e);
  assert.ok(e instanceof ChartProbeError, String(e));
});

Deno.test("ArchiveReader stops at the deadline and the caller's signal before sending", async () => {
  const { ctx, clock } = custom((r) => partial(r!.start, r!.end, String(file.byteLength)));
  const reader = await ArchiveReader.open(ctx({ deadline: clock.monotonic() + 100 }));
  clock.advance(100);
  assert.equal((await reader.read(50_000, 10).catch((e) => e)).kind, "timeout");
  const ctrl = new AbortController();
  const r2 = await ArchiveReader.open(ctx({ signal: ctrl.signal }));
  ctrl.abort();
  assert.equal((await r2.read(50_000, 10).catch((e) => e)).kind, "aborted");
});

Deno.test("ArchiveReader reads a small archive completely with its second request", async () => {
  const small = file.subarray(0, 30_000);
  const { ctx } = custom((r) =>
    new Response(small.slice(r!.start, Math.min(r!.end, small.byteLength - 1) + 1), {
      status: 206,
      headers: {
        "content-range": `bytes ${r!.start}-${Math.min(r!.end, small.byteLength - 1)}/${small.byteLength}`,
      },
    })
  );
  const reader = await ArchiveReader.open(ctx());
  assert.deepEqual([reader.size, reader.requests, reader.bytesDownloaded], [30_000, 2, 30_000]);
  assert.deepEqual(first(await reader.read(29_990, 10), 10), [...small.subarray(29_990)]);
  assert.equal(reader.requests, 2);
});
