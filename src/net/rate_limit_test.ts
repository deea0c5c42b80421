import { equal } from "node:assert/strict";
import { TokenBucket, WindowCounter } from "./rate_limit.ts";

Deno.test("WindowCounter allows `limit` per window per key and forgets old keys", () => {
  const c = new WindowCounter(3, 10_000, 2);
  for (let i = 0; i < 3; i++) equal(c.hit("a", i), true);
  equal(c.hit("a", 5), false);
  equal(c.hit("b", 5), true);
  equal(c.hit("a", 10_000), true);
  c.hit("c", 10_001);
  c.hit("d", 10_002);
  equal(c.size <= 3, true);
});

Deno.test("TokenBucket: 10 per 3 s, refilled over time", () => {
  const b = new TokenBucket(10, 3000, 0);
  for (let i = 0; i < 10; i++) equal(b.take(0), true);
  equal(b.take(0), false);
  equal(b.take(299), false);
  equal(b.take(300), true);
  equal(b.take(3300), true);
});
