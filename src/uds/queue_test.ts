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

Deno.test("bounded queue keeps order across wrap-around and never holds more than its capacity", async () => {
  const q = new BoundedQueue<number>(3);
  const read = async (n: number) => {
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) out.push(await q.next());
    return out;
  };
  for (const n of [0, 1, 2]) q.push(n);
  deepEqual(await read(2), [{ type: "event", event: 0 }, { type: "event", event: 1 }]);
  // The tail wraps around the end of the ring.
  for (const n of [3, 4]) q.push(n);
  deepEqual(q.size, 3);
  deepEqual(await read(3), [{ type: "event", event: 2 }, { type: "event", event: 3 }, { type: "event", event: 4 }]);
  deepEqual(q.size, 0);
  for (const n of [5, 6, 7, 8, 9]) q.push(n);
  deepEqual(q.size, 3);
  deepEqual(await read(4), [
    { type: "lagged", skipped: 2 },
    { type: "event", event: 7 },
    { type: "event", event: 8 },
    { type: "event", event: 9 },
  ]);
  q.close();
});
