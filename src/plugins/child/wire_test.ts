import { deepEqual, equal, throws } from "node:assert/strict";
import { decodeBody, encodeFrame, FrameSplitter, MAX_FRAME_BYTES, readFrameSync, writeFrameSync } from "./wire.ts";

Deno.test("wire frames carry bigints and bytes through JSON", () => {
  const message = { t: "host", a: [2n ** 63n - 1n, new Uint8Array([0, 255, 7]), "x", null, { n: 1 }] };
  const frame = encodeFrame(message);
  equal(new DataView(frame.buffer).getUint32(0, true), frame.length - 4);
  deepEqual(decodeBody(frame.subarray(4)), message);
});

Deno.test("FrameSplitter joins frames split anywhere and keeps what is unfinished", () => {
  const a = encodeFrame({ n: 1 });
  const b = encodeFrame({ n: 2, s: "é" });
  const joined = new Uint8Array([...a, ...b]);
  const splitter = new FrameSplitter();
  const out: unknown[] = [];
  for (let i = 0; i < joined.length; i += 3) out.push(...splitter.push(joined.subarray(i, i + 3)));
  deepEqual(out, [{ n: 1 }, { n: 2, s: "é" }]);
  equal(splitter.pending, 0);
  throws(() => new FrameSplitter().push(new Uint8Array([0xff, 0xff, 0xff, 0x7f])), RangeError);
});

Deno.test("sync frames round trip through a reader and a writer", () => {
  const chunks: Uint8Array[] = [];
  writeFrameSync({ writeSync: (b) => (chunks.push(b.slice(0, 2)), Math.min(2, b.length)) }, { hello: [1n] });
  const bytes = new Uint8Array(chunks.flatMap((c) => [...c]));
  let at = 0;
  const reader = {
    readSync(buffer: Uint8Array) {
      if (at >= bytes.length) return null;
      const n = Math.min(buffer.length, 3, bytes.length - at);
      buffer.set(bytes.subarray(at, at + n));
      at += n;
      return n;
    },
  };
  deepEqual(readFrameSync(reader), { hello: [1n] });
  equal(readFrameSync(reader), null);
  throws(() => encodeFrame({ s: "x".repeat(MAX_FRAME_BYTES) }), RangeError);
});
