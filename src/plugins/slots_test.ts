import { deepEqual, equal } from "node:assert/strict";
import { Slots } from "./slots.ts";

Deno.test("slots bound how many run at once and serve waiters in order", async () => {
  const slots = new Slots(2);
  const order: string[] = [];
  await slots.acquire();
  await slots.acquire();
  const c = slots.acquire().then(() => order.push("c"));
  const d = slots.acquire().then(() => order.push("d"));
  equal(slots.waiting, 2);
  slots.release();
  await c;
  slots.release();
  await d;
  deepEqual(order, ["c", "d"]);
  equal(slots.busy, 2);
  slots.release();
  slots.release();
  equal(slots.busy, 0);
});
