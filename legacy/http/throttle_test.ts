import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { ManualClock } from "../../src/util/clock.ts";
import { chunkSize, delayBefore, throttledStream } from "./throttle.ts";

Deno.test("throttle: chunk sizes and delays follow the rate", () => {
  equal(chunkSize(51200), 12800);
  equal(chunkSize(100), 1024);
  equal(chunkSize(0), 65536);
  equal(delayBefore(0, 0, 1000), 0);
  equal(delayBefore(1000, 0, 1000), 1000);
  equal(delayBefore(1000, 400, 1000), 600);
  equal(delayBefore(1000, 5000, 1000), 0);
  equal(delayBefore(1e9, 0, 0), 0, "0 = unthrottled");
});

Deno.test("throttle: a stream sends no faster than its rate on the injected clock and closes the file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "throttle_" });
  try {
    const path = join(dir, "f.bin");
    const data = Uint8Array.from({ length: 3000 }, (_, i) => i % 251);
    await Deno.writeFile(path, data);
    const clock = new ManualClock();
    let done = 0;
    const stream = throttledStream(await Deno.open(path), 4096, clock, () => done++);
    const reader = stream.getReader();
    const got: number[] = [];
    got.push(...(await reader.read()).value!);
    equal(got.length, 1024);
    let second = false;
    const pending = reader.read().then((r) => {
      second = true;
      got.push(...r.value!);
    });
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    equal(second, false, "the second chunk waits for the clock");
    clock.advance(250);
    await pending;
    equal(got.length, 2048);
    clock.advance(250);
    got.push(...(await reader.read()).value!);
    clock.advance(250);
    equal((await reader.read()).done, true);
    deepEqual(got, [...data]);
    equal(done, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
