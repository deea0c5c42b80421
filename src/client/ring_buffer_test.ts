import { deepEqual, equal, throws } from "node:assert/strict";
import { RingBuffer } from "./ring_buffer.ts";

Deno.test("RingBuffer drops the oldest item when full and counts it", () => {
  const ring = new RingBuffer<number>(3);
  for (let i = 1; i <= 5; i++) ring.push(i);
  deepEqual(ring.toArray(), [3, 4, 5]);
  equal(ring.dropped, 2);
  equal(ring.shift(), 3);
  ring.push(6);
  ring.push(7);
  deepEqual(ring.toArray(), [5, 6, 7]);
  equal(ring.dropped, 3);
});

Deno.test("RingBuffer grows on demand, finds and removes in the middle", () => {
  const ring = new RingBuffer<number>(100);
  for (let i = 0; i < 20; i++) ring.push(i);
  ring.shift();
  equal(ring.findIndex((n) => n % 7 === 0), 6);
  equal(ring.removeAt(6), 7);
  equal(ring.at(6), 8);
  equal(ring.length, 18);
  deepEqual(ring.toArray().slice(4, 8), [5, 6, 8, 9]);
  equal(ring.removeAt(99), undefined);
  ring.clear();
  deepEqual(ring.toArray(), []);
});

Deno.test("RingBuffer with capacity 0 keeps nothing; negative capacity is refused", () => {
  const ring = new RingBuffer<string>(0);
  ring.push("a");
  equal(ring.length, 0);
  equal(ring.dropped, 1);
  equal(ring.shift(), undefined);
  throws(() => new RingBuffer(-1), RangeError);
});
