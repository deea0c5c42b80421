import { deepEqual, equal, throws } from "node:assert/strict";
import {
  decodeHeader,
  encodeEntry,
  encodeHeader,
  encodeRecordId,
  HEADER_BYTES,
  parseReplay,
  RECORD_ID_OFFSET,
  ReplayFormatError,
} from "./format.ts";

const bytes = (...parts: (number[] | Uint8Array)[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

Deno.test("replay header is 14 little-endian bytes with magic 4D 50", () => {
  const h = encodeHeader({ chartId: 0x01020304, userId: 100, recordId: 0 });
  equal(h.length, HEADER_BYTES);
  deepEqual([...h], [0x4d, 0x50, 4, 3, 2, 1, 100, 0, 0, 0, 0, 0, 0, 0]);
  deepEqual([...encodeRecordId(0x0a0b0c0d)], [0x0d, 0x0c, 0x0b, 0x0a]);
  equal(RECORD_ID_OFFSET, 10);
});

Deno.test("replay parse reads the header and every entry, and marks a cut tail", async (t) => {
  const a = Uint8Array.of(1, 2, 3);
  const b = Uint8Array.of(9);
  const file = bytes(encodeHeader({ chartId: 7, userId: 8, recordId: 9 }), encodeEntry(a), encodeEntry(b));
  await t.step("whole", () => {
    const r = parseReplay(file);
    deepEqual(r.header, { chartId: 7, userId: 8, recordId: 9 });
    equal(r.variant, "standard");
    deepEqual(r.entries.map((e) => [...e]), [[1, 2, 3], [9]]);
    equal(r.truncated, false);
  });
  await t.step("cut inside the last entry", () => {
    const r = parseReplay(file.subarray(0, file.length - 1));
    deepEqual(r.entries.map((e) => [...e]), [[1, 2, 3]]);
    equal(r.truncated, true);
  });
  await t.step("cut inside a length prefix", () => {
    const r = parseReplay(file.subarray(0, HEADER_BYTES + 2));
    equal(r.entries.length, 0);
    equal(r.truncated, true);
  });
  await t.step("an absurd length is corruption", () => {
    throws(
      () => parseReplay(bytes(encodeHeader({ chartId: 1, userId: 1, recordId: 0 }), [0xff, 0xff, 0xff, 0x7f])),
      ReplayFormatError,
    );
  });
  await t.step("too short for a header", () => {
    throws(() => parseReplay(Uint8Array.of(0x4d, 0x50, 1)), ReplayFormatError);
  });
});

Deno.test("replay header variants of other readers are accepted", () => {
  deepEqual(decodeHeader(bytes([0x50, 0x4d], [0, 0, 0, 7], [0, 0, 0, 8], [0, 0, 0, 9])), {
    header: { chartId: 7, userId: 8, recordId: 9 },
    variant: "swapped",
    length: 14,
  });
  deepEqual(decodeHeader(bytes([0x50, 0x48, 0x49, 0x52], [7, 0, 0, 0], [8, 0, 0, 0], [9, 0, 0, 0])), {
    header: { chartId: 7, userId: 8, recordId: 9 },
    variant: "phir",
    length: 16,
  });
  deepEqual(decodeHeader(bytes([7, 0, 0, 0], [8, 0, 0, 0], [9, 0, 0, 0])), {
    header: { chartId: 7, userId: 8, recordId: 9 },
    variant: "bare",
    length: 12,
  });
});
