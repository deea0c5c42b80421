import { deepEqual } from "node:assert/strict";
import { BoundedQueue } from "./queue.ts";

Deno.test("bounded queue drops the oldest and reports how many once", async () => {
  const q = new BoundedQueue<number>(2);
  const waiting = q.next();
  q.push(1);
  deepEqual(await waiting, { type: "event", event: 1 });
  for (const n of [2, 3, 4, 5]) q.push(n);
  deepEqual(await q.next(), { type: "lagged", skipped: 2 });
  deepEqual(await q.next(), { type: "event", event: 4 });
  deepEqual(await q.next(), { type: "event", event: 5 });
  const end = q.next();
  q.close();
  deepEqual(await end, null);
  q.push(6);
  deepEqual(await q.next(), null);
});
