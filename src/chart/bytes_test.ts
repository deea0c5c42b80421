import assert from "node:assert/strict";
import { ByteView, MissingBytes, uint64LE, uintBE, uintLE } from "./bytes.ts";
import { errorKind, thrown } from "./test_support.ts";

Deno.test("ByteView serves loaded ranges and names the missing ones", () => {
  const v = new ByteView(100);
  v.add(10, Uint8Array.from({ length: 20 }, (_, i) => i));
  v.add(95, new Uint8Array(10)); // clipped to the size
  assert.deepEqual([...v.upTo(12, 3)], [2, 3, 4]);
  assert.equal(v.upTo(98, 10).byteLength, 2, "clipped at the end");
  assert.equal(v.upTo(100, 5).byteLength, 0, "past the end");
  assert.ok(v.has(10, 20) && !v.has(10, 21));
  assert.equal(v.loadedBytes, 25);
  const e = thrown(() => v.upTo(25, 10));
  assert.ok(e instanceof MissingBytes);
  assert.deepEqual([e.start, e.length], [25, 10]);
  assert.equal(errorKind(() => v.exact(95, 10, "a header")), "bad_audio");
  assert.equal(errorKind(() => v.exact(-1, 1, "a header")), "bad_audio");
});

Deno.test("integer readers", () => {
  const b = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8);
  assert.equal(uintLE(b, 0, 4), 0x04030201);
  assert.equal(uintBE(b, 0, 4), 0x01020304);
  assert.equal(uint64LE(b, 0), null, "over 2^53");
  assert.equal(uint64LE(Uint8Array.of(1, 0, 0, 0, 1, 0, 0, 0), 0), 2 ** 32 + 1);
  assert.equal(uintLE(b, 6, 4), 0x0807, "missing bytes read as zero");
});
