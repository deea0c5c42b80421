import { deepEqual, equal } from "node:assert/strict";
import { concatBytes, readCapped } from "./bytes.ts";

Deno.test("concatBytes joins chunks in order, views included; none gives an empty array", () => {
  const view = new Uint8Array([9, 4, 5, 9]).subarray(1, 3);
  deepEqual(
    concatBytes([new Uint8Array([1, 2]), new Uint8Array(0), new Uint8Array([3]), view]),
    new Uint8Array([1, 2, 3, 4, 5]),
  );
  deepEqual(concatBytes([]), new Uint8Array(0));
});

Deno.test("readCapped reads up to its limit and cancels the rest of a longer body unread", async () => {
  // An endless body after its chunks when `open`: only a cancel can end the read.
  const body = (chunks: number[], cancelled: { value: boolean }, open = false) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const n of chunks) c.enqueue(new Uint8Array(n).fill(n));
        if (!open) c.close();
      },
      cancel: () => void (cancelled.value = true),
    });
  const kept = { value: false };
  deepEqual(await readCapped(body([2, 3], kept), 5), new Uint8Array([2, 2, 3, 3, 3]));
  equal(kept.value, false);
  const over = { value: false };
  equal(await readCapped(body([2, 3, 4], over, true), 5), null);
  equal(over.value, true, "the rest of the body is cancelled");
  deepEqual(await readCapped(null, 5), new Uint8Array(0));
});
