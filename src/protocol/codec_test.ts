import { deepEqual, equal, throws } from "node:assert/strict";
import {
  bool,
  bytes,
  decodeValue,
  encodeValue,
  enumOf,
  f16,
  i32,
  map,
  option,
  ProtocolError,
  Reader,
  result,
  string,
  struct,
  uleb,
  unitEnum,
  varchar,
  variant,
  vec,
  Writer,
} from "./codec.ts";

const isProtocolError = (reason: string) => (e: unknown) => e instanceof ProtocolError && e.message.startsWith(reason);

Deno.test("uleb writes minimal encodings and reads non-minimal ones", () => {
  deepEqual([...encodeValue(uleb, 0)], [0x00]);
  deepEqual([...encodeValue(uleb, 127)], [0x7f]);
  deepEqual([...encodeValue(uleb, 128)], [0x80, 0x01]);
  deepEqual([...encodeValue(uleb, 203)], [0xcb, 0x01]);
  equal(decodeValue(uleb, new Uint8Array([0x82, 0x00])), 2);
  throws(() => decodeValue(uleb, new Uint8Array(11).fill(0x80)), isProtocolError("invalid uleb128"));
  throws(() => decodeValue(uleb, new Uint8Array([0x80])), isProtocolError("unexpected EOF"));
});

Deno.test("bool and option read any byte other than 1 as false/None", () => {
  equal(decodeValue(bool, new Uint8Array([2])), false);
  equal(decodeValue(bool, new Uint8Array([1])), true);
  equal(decodeValue(option(i32), new Uint8Array([7, 1, 0, 0, 0])), null);
  equal(decodeValue(option(i32), new Uint8Array([1, 1, 0, 0, 0])), 1);
});

Deno.test("result reads 1 as Ok and anything else as Err", () => {
  const r = result(i32);
  deepEqual(decodeValue(r, new Uint8Array([1, 5, 0, 0, 0])), { ok: true, value: 5 });
  deepEqual(decodeValue(r, new Uint8Array([9, 1, 0x78])), { ok: false, error: "x" });
});

Deno.test("strings decode lossily and reject lengths past the payload before allocating", () => {
  equal(decodeValue(string, new Uint8Array([3, 0x61, 0xff, 0x62])), "a\uFFFDb");
  throws(
    () => decodeValue(string, new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f, 0x61])),
    isProtocolError("unexpected EOF"),
  );
  throws(() => decodeValue(varchar(2), new Uint8Array([3, 0x61, 0x62, 0x63])), isProtocolError("string too long"));
  throws(() => encodeValue(varchar(2), "abc"), RangeError);
  // Varchar limits count UTF-8 bytes, not characters (protocol.md §2).
  throws(() => encodeValue(varchar(2), "é€"), RangeError);
});

Deno.test("vec and map refuse counts larger than the bytes left", () => {
  throws(() => decodeValue(vec(i32), new Uint8Array([3, 0, 0, 0, 0])), isProtocolError("unexpected EOF"));
  throws(() => decodeValue(map(i32, i32), new Uint8Array([0xff, 0xff, 0x03])), isProtocolError("unexpected EOF"));
  const m = decodeValue(map(i32, bool), new Uint8Array([2, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0]));
  deepEqual([...m], [[1, false]]);
  deepEqual(decodeValue(bytes, new Uint8Array([2, 9, 8])), new Uint8Array([9, 8]));
});

Deno.test("enumOf tags by declaration order and rejects unknown tags", () => {
  const E = enumOf("E", [variant("A"), variant("B", { x: i32 })]);
  deepEqual([...encodeValue(E, { type: "B", x: 1 })], [1, 1, 0, 0, 0]);
  deepEqual(decodeValue(E, new Uint8Array([0])), { type: "A" });
  throws(() => decodeValue(E, new Uint8Array([2])), isProtocolError("invalid enum: 2"));
  equal(E.tagOf("B"), 1);
  const U = unitEnum("U", ["X", "Y"]);
  equal(decodeValue(U, new Uint8Array([1])), "Y");
  throws(() => decodeValue(U, new Uint8Array([5])), isProtocolError("invalid enum: 5"));
});

Deno.test("f16 rounds to nearest even and overflows to infinity", () => {
  const cases: Array<[number, number]> = [
    [0.5, 0x3800],
    [-0.25, 0xb400],
    [1, 0x3c00],
    [0.1, 0x2e66],
    [1.7777778, 0x3f1c],
    [65520, 0x7c00],
    [1e-8, 0],
  ];
  for (const [value, bits] of cases) {
    const b = encodeValue(f16, value);
    equal(b[0]! | (b[1]! << 8), bits, `f16(${value})`);
  }
  equal(decodeValue(f16, new Uint8Array([0x00, 0x3c])), 1);
});

Deno.test("struct keeps declaration order and Writer grows across many writes", () => {
  const S = struct({ b: bool, a: i32, s: string });
  deepEqual([...encodeValue(S, { b: true, a: 2, s: "z" })], [1, 2, 0, 0, 0, 1, 0x7a]);
  const w = new Writer(16, 5);
  for (let i = 0; i < 1000; i++) w.i32(i);
  const frame = w.frame();
  equal(frame.length, 4000 + 2);
  const r = new Reader(frame, 2);
  equal(r.i32(), 0);
  r.pos = 2 + 999 * 4;
  equal(r.i32(), 999);
});
