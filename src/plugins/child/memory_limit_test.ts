import { equal, throws } from "node:assert/strict";
import { limitMemory, MemoryLimitError } from "./memory_limit.ts";

/** `(module (memory (export "m") <min> [<max>]))` in binary form. */
function moduleWithMemory(min: number, max?: number): Uint8Array {
  const limits = max === undefined ? [0x00, min] : [0x01, min, max];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    0x05,
    limits.length + 1,
    0x01,
    ...limits,
    0x07,
    0x05,
    0x01,
    0x01,
    0x6d,
    0x02,
    0x00,
  ]);
}

function memoryOf(bytes: Uint8Array): WebAssembly.Memory {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes as BufferSource));
  return instance.exports.m as WebAssembly.Memory;
}

Deno.test("limitMemory gives an unbounded memory a maximum: growing past it fails", () => {
  const memory = memoryOf(limitMemory(moduleWithMemory(1), 3));
  equal(memory.grow(2), 1);
  throws(() => memory.grow(1), RangeError);
  equal(memory.buffer.byteLength, 3 * 65536);
});

Deno.test("limitMemory lowers a larger maximum and keeps a smaller one", () => {
  throws(() => memoryOf(limitMemory(moduleWithMemory(1, 100), 2)).grow(2), RangeError);
  const small = memoryOf(limitMemory(moduleWithMemory(1, 2), 50));
  equal(small.grow(1), 1);
  throws(() => small.grow(1), RangeError);
});

Deno.test("limitMemory refuses a module that needs more at start, and what is not WebAssembly", () => {
  throws(() => limitMemory(moduleWithMemory(5), 4), MemoryLimitError);
  throws(() => limitMemory(new Uint8Array([1, 2, 3]), 4), /not a WebAssembly binary/);
  throws(() => limitMemory(moduleWithMemory(1).slice(0, 11), 4), /runs past the end/);
});

Deno.test("limitMemory copies modules without a memory section unchanged", () => {
  const empty = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  equal(limitMemory(empty, 4).join(), empty.join());
});
