import assert from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { ChartDurationCache } from "./cache.ts";
import type { ChartAudio } from "./probe.ts";

function audio(durationSecs: number): ChartAudio {
  return {
    durationSecs,
    format: "ogg",
    entry: "m.ogg",
    sampleRate: 44100,
    compressed: false,
    bytesDownloaded: 1,
    requests: 1,
  };
}

Deno.test("ChartDurationCache keys by chart id and chartUpdated", () => {
  const cache = new ChartDurationCache({ clock: new ManualClock() });
  cache.set(1, "2024-01-01", audio(10));
  assert.equal(cache.get(1, "2024-01-01")?.durationSecs, 10);
  assert.equal(cache.get(1, "2024-02-01"), undefined, "a new file version misses");
  assert.equal(cache.get(2, "2024-01-01"), undefined);
  cache.delete(1);
  assert.equal(cache.get(1, "2024-01-01"), undefined);
});

Deno.test("ChartDurationCache expires entries and evicts the least recently used", () => {
  const clock = new ManualClock();
  const cache = new ChartDurationCache({ clock, maxEntries: 2, ttlMs: 1000 });
  cache.set(1, "u", audio(1));
  cache.set(2, "u", audio(2));
  assert.ok(cache.get(1, "u"));
  cache.set(3, "u", audio(3)); // evicts 2, the least recently used
  assert.deepEqual([cache.get(1, "u")?.durationSecs, cache.get(2, "u"), cache.get(3, "u")?.durationSecs], [
    1,
    undefined,
    3,
  ]);
  assert.equal(cache.size, 2);
  clock.advance(1000);
  assert.equal(cache.get(1, "u"), undefined);
  assert.equal(cache.size, 1);
  assert.throws(() => new ChartDurationCache({ clock, maxEntries: 0 }), RangeError);
});

Deno.test("ChartDurationCache.getOrProbe shares one probe and caches only successes", async () => {
  const cache = new ChartDurationCache({ clock: new ManualClock() });
  let calls = 0;
  let release!: (a: ChartAudio) => void;
  const probe = () => {
    calls++;
    return new Promise<ChartAudio>((r) => (release = r));
  };
  const a = cache.getOrProbe(7, "u", probe);
  const b = cache.getOrProbe(7, "u", probe);
  release(audio(70));
  assert.deepEqual([(await a).cached, (await b).cached, (await b).audio.durationSecs], [false, true, 70]);
  assert.equal(calls, 1);
  assert.equal((await cache.getOrProbe(7, "u", probe)).cached, true);
  await assert.rejects(cache.getOrProbe(8, "u", () => Promise.reject(new Error("boom"))), /boom/);
  assert.equal(cache.get(8, "u"), undefined);
  const again = cache.getOrProbe(8, "u", () => Promise.resolve(audio(80)));
  assert.equal((await again).audio.durationSecs, 80, "a failure is retried by the next caller");
});
