import { equal } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { TtlCache } from "./ttl_cache.ts";

Deno.test("TtlCache: entries expire after their time to live; the least recently used goes first", () => {
  const clock = new ManualClock();
  const c = new TtlCache<number, string>(clock, 1000, 2);
  c.set(1, "a");
  c.set(2, "b");
  equal(c.get(1), "a");
  c.set(3, "c");
  equal(c.get(2), undefined, "2 was the least recently used");
  equal(c.get(1), "a");
  clock.advance(999);
  equal(c.get(3), "c");
  clock.advance(1);
  equal(c.get(3), undefined);
  equal(c.get(1), undefined);
  c.set(4, "d");
  c.delete(4);
  equal(c.get(4), undefined);
  equal(c.size, 0);
});
