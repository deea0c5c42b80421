import { deepEqual, equal, ok } from "node:assert/strict";
import { SeededRandom } from "../util/random.ts";
import { Upstream } from "./client.ts";
import { UpstreamError } from "./errors.ts";
import { parseContentRange } from "./range.ts";
import { drive, rejection, rig } from "./test_support.ts";

const FILE = "http://dev.invalid/files/chart-5.zip";

Deno.test("parseContentRange reads byte ranges and unsatisfied sizes", () => {
  deepEqual(parseContentRange("bytes 0-99/1000"), { start: 0, end: 99, total: 1000 });
  deepEqual(parseContentRange("bytes 5-9/*"), { start: 5, end: 9, total: null });
  deepEqual(parseContentRange("bytes */1234"), { unsatisfied: true, total: 1234 });
  equal(parseContentRange("bytes 9-5/10"), null);
  equal(parseContentRange("items 0-1/2"), null);
  equal(parseContentRange(null), null);
});

Deno.test("fetchRange reads a 206 partial answer", async () => {
  const { clock, api, up } = rig();
  const archive = api.state.archive(5)!.bytes;
  const r = await drive(clock, up.fetchRange(FILE, 10, 19));
  deepEqual(r, { bytes: archive.slice(10, 20), start: 10, totalSize: archive.length, partial: true });
  equal(api.state.requests[0]?.range, "bytes=10-19");
  const clipped = await drive(clock, up.fetchRange(FILE, archive.length - 5, archive.length + 100));
  deepEqual(clipped.bytes, archive.slice(-5));
});

Deno.test("fetchRange past the end fails with HTTP 416 and no retry", async () => {
  const { clock, api, up } = rig();
  const size = api.state.archive(5)!.bytes.length;
  const e = await rejection(drive(clock, up.fetchRange(FILE, size + 10, size + 20)));
  ok(e instanceof UpstreamError);
  equal(e.kind, "http");
  equal(e.status, 416);
  equal(e.endpoint, "download");
  equal(e.message, `Cannot download ${FILE}: HTTP 416 Range Not Satisfiable (resource is ${size} bytes)`);
  equal(api.state.requests.length, 1);
});

Deno.test("fetchTail reads the last bytes with a suffix range", async () => {
  const { clock, api, up } = rig();
  const archive = api.state.archive(5)!.bytes;
  const r = await drive(clock, up.fetchTail(FILE, 64));
  deepEqual(r, { bytes: archive.slice(-64), start: archive.length - 64, totalSize: archive.length, partial: true });
  equal(api.state.requests[0]?.range, "bytes=-64");
  const all = await drive(clock, up.fetchTail(FILE, archive.length * 2));
  equal(all.start, 0);
  deepEqual(all.bytes, archive);
});

Deno.test("fetchRange against a server ignoring Range slices the full answer", async () => {
  const { clock, api, up } = rig();
  api.state.addChart({ id: 5, ignoreRange: true });
  const archive = api.state.archive(5)!.bytes;
  const r = await drive(clock, up.fetchRange(FILE, 100, 199));
  deepEqual(r, { bytes: archive.slice(100, 200), start: 100, totalSize: archive.length, partial: false });
  const tail = await drive(clock, up.fetchTail(FILE, 30));
  deepEqual(tail, { bytes: archive.slice(-30), start: archive.length - 30, totalSize: archive.length, partial: false });
  equal(api.state.requests.every((q) => q.status === 200), true);
});

Deno.test("fetchRange enforces the byte cap when Range is ignored", async () => {
  const { clock, api, up } = rig({ api: { ignoreRange: true }, up: { maxDownloadBytes: 1000 } });
  const size = api.state.archive(5)!.bytes.length;
  ok(size > 1000);
  const far = await rejection(drive(clock, up.fetchRange(FILE, 2000, 2099)));
  ok(far instanceof UpstreamError);
  equal(far.kind, "invalid_response");
  ok(far.message.includes("over the cap of 1000"), far.message);
  const tail = await rejection(drive(clock, up.fetchTail(FILE, 10)));
  ok(tail instanceof UpstreamError && tail.kind === "invalid_response");
  // Within the cap a prefix is still fine.
  equal((await drive(clock, up.fetchRange(FILE, 0, 99))).bytes.length, 100);
});

/** A 200 response streaming `chunks` chunks of 64 KiB, counting pulls; no Content-Length. */
function endlessBody(chunks: number) {
  const counter = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (counter.pulled >= chunks) return ctrl.close();
      ctrl.enqueue(new Uint8Array(65536).fill(counter.pulled & 0xff));
      counter.pulled++;
    },
    cancel() {
      counter.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { counter, response: new Response(body, { status: 200 }) };
}

Deno.test("fetchRange stops reading an ignored-Range body once it has the bytes", async () => {
  const { counter, response } = endlessBody(1000);
  const up = new Upstream({ baseUrl: "http://x.invalid", fetch: () => Promise.resolve(response) });
  const r = await up.fetchRange("http://x.invalid/big.zip", 70000, 70009);
  deepEqual(r.bytes, new Uint8Array(10).fill(1));
  equal(r.partial, false);
  equal(r.totalSize, null);
  ok(counter.pulled <= 3, `pulled ${counter.pulled}`);
  ok(counter.cancelled);
});

Deno.test("fetchTail gives up on an endless ignored-Range body at the cap", async () => {
  const { counter, response } = endlessBody(1000);
  const up = new Upstream({
    baseUrl: "http://x.invalid",
    fetch: () => Promise.resolve(response),
    maxDownloadBytes: 200_000,
    random: new SeededRandom(1),
  });
  const e = await rejection(up.fetchTail("http://x.invalid/big.zip", 22));
  ok(e instanceof UpstreamError && e.kind === "invalid_response", String(e));
  ok(counter.pulled <= 5, `pulled ${counter.pulled}`);
  ok(counter.cancelled);
});

Deno.test("fetchRange rejects a 206 that does not cover the request", async () => {
  const response = new Response(new Uint8Array(10), {
    status: 206,
    headers: { "content-range": "bytes 50-59/100" },
  });
  const up = new Upstream({ baseUrl: "http://x.invalid", fetch: () => Promise.resolve(response) });
  const e = await rejection(up.fetchRange("http://x.invalid/a.zip", 0, 9));
  ok(e instanceof UpstreamError);
  equal(
    e.message,
    "Cannot download http://x.invalid/a.zip: invalid response: server sent bytes 50-59 for a request of bytes=0-9",
  );
});

Deno.test("fetchRange and fetchTail reject invalid arguments", async () => {
  const up = new Upstream({ baseUrl: "http://x.invalid", fetch: () => Promise.reject(new Error("unused")) });
  ok(await rejection(up.fetchRange("http://x.invalid/a", 5, 4)) instanceof RangeError);
  ok(await rejection(up.fetchRange("http://x.invalid/a", -1, 4)) instanceof RangeError);
  ok(await rejection(up.fetchTail("http://x.invalid/a", 0)) instanceof RangeError);
});
