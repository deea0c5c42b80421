import { deepEqual, equal, rejects } from "node:assert/strict";
import { createPipe } from "./pipe.ts";

Deno.test("pipe carries bytes both ways and reports EOF after close", async () => {
  const [a, b] = createPipe();
  await a.write(new Uint8Array([1, 2, 3]));
  await b.write(new Uint8Array([9]));
  const buf = new Uint8Array(2);
  equal(await b.read(buf), 2);
  deepEqual([...buf], [1, 2]);
  equal(await b.read(buf), 1);
  equal(buf[0], 3);
  equal(await a.read(buf), 1);
  equal(buf[0], 9);
  const pending = b.read(buf);
  a.close();
  equal(await pending, null);
  await rejects(() => b.write(new Uint8Array([1])), Deno.errors.BrokenPipe);
  await b.closed;
});

Deno.test("pipe writes wait while the peer does not read past the high-water mark", async () => {
  const [a, b] = createPipe(4);
  await a.write(new Uint8Array(4));
  let done = false;
  const blocked = a.write(new Uint8Array([7])).then(() => (done = true));
  await Promise.resolve();
  equal(done, false);
  const buf = new Uint8Array(8);
  equal(await b.read(buf), 4);
  await blocked;
  equal(done, true);
  equal(await b.read(buf), 1);
  a.close();
});
