import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { encodeFrame, FrameError, FrameReader } from "./framing.ts";

/** A byte source that hands out `chunks` one read at a time. */
function source(...chunks: Uint8Array[]) {
  return {
    read(p: Uint8Array): Promise<number | null> {
      const c = chunks.shift();
      if (!c) return Promise.resolve(null);
      const n = Math.min(p.length, c.length);
      p.set(c.subarray(0, n));
      if (n < c.length) chunks.unshift(c.subarray(n));
      return Promise.resolve(n);
    },
  };
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) out.set(p, (i += p.length) - p.length);
  return out;
}

Deno.test("frames are a little-endian u32 length and UTF-8 JSON", async () => {
  const frame = encodeFrame({ a: "é" });
  deepEqual([...frame.subarray(0, 4)], [10, 0, 0, 0]);
  equal(new TextDecoder().decode(frame.subarray(4)), '{"a":"é"}');
  const bytes = concat(frame, encodeFrame([1]), encodeFrame("x"));
  // Delivered one byte at a time, and all at once.
  const slow = new FrameReader(source(...[...bytes].map((b) => new Uint8Array([b]))));
  const fast = new FrameReader(source(bytes));
  for (const r of [slow, fast]) {
    deepEqual([await r.next(), await r.next(), await r.next(), await r.next()], [{ a: "é" }, [1], "x", null]);
  }
});

Deno.test("frame errors: bad JSON is not fatal; zero, oversized and cut frames are", async () => {
  const bad = new TextEncoder().encode("{x");
  const r = new FrameReader(source(concat(new Uint8Array([2, 0, 0, 0]), bad, encodeFrame(1))));
  await rejects(r.next(), (e) => e instanceof FrameError && !e.fatal);
  equal(await r.next(), 1);
  await rejects(new FrameReader(source(new Uint8Array(4))).next(), (e) => e instanceof FrameError && e.fatal);
  await rejects(new FrameReader(source(new Uint8Array([5, 0, 0, 0])), 4).next(), /over the 4 byte limit/);
  await rejects(new FrameReader(source(new Uint8Array([5, 0, 0, 0, 1]))).next(), /inside a payload/);
  await rejects(new FrameReader(source(new Uint8Array([5, 0]))).next(), /inside a length prefix/);
  const latin1 = new FrameReader(source(new Uint8Array([1, 0, 0, 0, 0xff])));
  await rejects(latin1.next(), /not UTF-8 JSON/);
  throws(() => encodeFrame("x".repeat(16 * 1024 * 1024)), /over the 16777216 byte limit/);
});
