import { deepEqual, equal, rejects } from "node:assert/strict";
import { ConcurrencyLimit } from "./concurrency_limit.ts";

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("concurrency limit: at most max holders, the rest served in order as slots come back", async () => {
  const slots = new ConcurrencyLimit(2);
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

Deno.test("concurrency limit: an aborted wait leaves the queue and never takes a slot", async () => {
  const slots = new ConcurrencyLimit(1);
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

Deno.test("concurrency limit: a long queue stays compact as it drains", async () => {
  const slots = new ConcurrencyLimit(1);
  await slots.acquire();
  const waits = Array.from({ length: 500 }, () => slots.acquire());
  for (let i = 0; i < 500; i++) slots.release();
  await Promise.all(waits);
  equal(slots.waiting, 0);
  equal(slots.busy, 1);
});

Deno.test("concurrency limit: run holds a slot for the operation, and an aborted wait never runs it", async () => {
  const limit = new ConcurrencyLimit(1);
  let release!: () => void;
  const first = limit.run(() => new Promise<string>((r) => (release = () => r("first"))));
  const ctrl = new AbortController();
  let ran = false;
  const second = limit.run(() => {
    ran = true;
    return Promise.resolve();
  }, ctrl.signal);
  ctrl.abort(new Error("gone"));
  await rejects(second, /gone/);
  release();
  equal(await first, "first");
  equal(ran, false);
  equal(limit.busy, 0);
  await rejects(limit.run(() => Promise.reject(new Error("op failed"))), /op failed/);
  equal(limit.busy, 0);
});
