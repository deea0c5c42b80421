import { deepEqual, equal, rejects } from "node:assert/strict";
import { RequestSlots } from "./slots.ts";

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("request slots: at most max holders, the rest served in order as slots come back", async () => {
  const slots = new RequestSlots(2);
  const order: number[] = [];
  await slots.acquire();
  await slots.acquire();
  equal(slots.busy, 2);
  const waits = [3, 4, 5].map((n) => slots.acquire().then(() => order.push(n)));
  await tick();
  deepEqual(order, []);
  equal(slots.waiting, 3);
  slots.release();
  await tick();
  deepEqual(order, [3]);
  equal(slots.busy, 2);
  slots.release();
  slots.release();
  await Promise.all(waits);
  deepEqual(order, [3, 4, 5]);
  slots.release();
  slots.release();
  equal(slots.busy, 0);
  equal(slots.waiting, 0);
});

Deno.test("request slots: an aborted wait leaves the queue and never takes a slot", async () => {
  const slots = new RequestSlots(1);
  await slots.acquire();
  const ctrl = new AbortController();
  const aborted = slots.acquire(ctrl.signal);
  const next = slots.acquire();
  ctrl.abort(new Error("deadline"));
  await rejects(aborted, /deadline/);
  equal(slots.waiting, 1);
  slots.release();
  await next;
  equal(slots.busy, 1);
  await rejects(slots.acquire(AbortSignal.abort(new Error("already"))), /already/);
  equal(slots.waiting, 0);
});

Deno.test("request slots: a long queue stays compact as it drains", async () => {
  const slots = new RequestSlots(1);
  await slots.acquire();
  const waits = Array.from({ length: 500 }, () => slots.acquire());
  for (let i = 0; i < 500; i++) slots.release();
  await Promise.all(waits);
  equal(slots.waiting, 0);
  equal(slots.busy, 1);
});
