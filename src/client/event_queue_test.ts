import { deepEqual, equal, rejects } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { ClientError } from "./errors.ts";
import { EventQueue } from "./event_queue.ts";

Deno.test("EventQueue waiters take the first match and leave the rest in order", async () => {
  const queue = new EventQueue<number>(10, new ManualClock());
  const even = queue.next((n) => n % 2 === 0);
  for (const n of [1, 3, 4, 5]) queue.push(n);
  equal(await even, 4);
  equal(await queue.next((n) => n > 4), 5);
  deepEqual(queue.drain(), [1, 3]);
});

Deno.test("EventQueue waits time out on the clock and leave no timer", async () => {
  const clock = new ManualClock();
  const queue = new EventQueue<number>(10, clock);
  const waiting = queue.next(undefined, 30, "wait for a number");
  clock.advance(30);
  await rejects(waiting, (e: ClientError) => e.code === "timeout" && e.message.startsWith("Cannot wait for a number"));
  queue.push(1);
  equal(await queue.next(undefined, 30), 1);
  equal(clock.pending, 0);
});

Deno.test("EventQueue iterators drain the buffer, then end quietly or throw", async () => {
  const quiet = new EventQueue<number>(10, new ManualClock());
  quiet.push(1);
  quiet.push(2);
  quiet.end(new ClientError("closed", "use client", "closed"), false);
  const seen = [];
  for await (const n of quiet.iterate()) seen.push(n);
  deepEqual(seen, [1, 2]);

  const failing = new EventQueue<number>(10, new ManualClock());
  const iterating = (async () => {
    for await (const _ of failing.iterate()) { /* nothing */ }
  })();
  failing.end(new ClientError("protocol", "read", "bad"), true);
  await rejects(iterating, (e: ClientError) => e.code === "protocol");
});
