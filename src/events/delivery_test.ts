import { deepEqual, equal } from "node:assert/strict";
import { LogHub } from "../util/log.ts";
import { EventBus } from "./bus.ts";
import type { BusItem } from "./subscription.ts";
import type { DomainEventInput } from "./types.ts";

const online = (user: number): DomainEventInput => ({
  kind: "user.online",
  user,
  name: `u${user}`,
  language: "en-US",
  ip: null,
});

/** `5` for user.online of user 5, `-n` for a gap of n events. */
function render(item: BusItem | undefined | null): number | null {
  if (!item) return null;
  if (item.type === "lagged") return -item.skipped;
  return item.event.kind === "user.online" ? item.event.user : 0;
}

function drain(sub: { tryNext(): BusItem | undefined }): number[] {
  const out: number[] = [];
  for (let item = sub.tryNext(); item; item = sub.tryNext()) out.push(render(item)!);
  return out;
}

Deno.test("reliable subscription: in order, the newest refused when full, the gap marked where it is", () => {
  const bus = new EventBus();
  const sub = bus.subscribe({ mode: "reliable", capacity: 3, name: "plugin:test" });
  for (let i = 1; i <= 5; i++) bus.publish(online(i));
  equal(sub.size, 3);
  deepEqual(drain(sub), [1, 2, 3, -2], "the events queued first are kept; the refused ones are reported after them");
  bus.publish(online(6));
  deepEqual(drain(sub), [6]);
  equal(sub.totalSkipped, 2);
  sub.close();
});

Deno.test("reliable subscription: separate gaps stay separate and in place", () => {
  const bus = new EventBus();
  const sub = bus.subscribe({ mode: "reliable", capacity: 2 });
  bus.publish(online(1));
  bus.publish(online(2));
  bus.publish(online(3)); // refused
  equal(render(sub.tryNext()), 1);
  bus.publish(online(4));
  bus.publish(online(5)); // refused
  bus.publish(online(6)); // refused, same gap
  deepEqual(drain(sub), [2, -1, 4, -2]);
  sub.close();
});

Deno.test("reliable subscription: overflow is reported once per episode, and in the bus status", () => {
  const bus = new EventBus();
  let episodes = 0;
  const sub = bus.subscribe({ mode: "reliable", capacity: 4, name: "plugin:slow", onOverflow: () => episodes++ });
  const latest = bus.subscribe({ capacity: 4 });
  for (let i = 1; i <= 10; i++) bus.publish(online(i));
  equal(episodes, 1, "one report while it stays full");
  drain(sub);
  for (let i = 11; i <= 20; i++) bus.publish(online(i));
  equal(episodes, 2, "a new episode after it drained");
  const status = bus.status();
  deepEqual(status.reliable, [{
    name: "plugin:slow",
    mode: "reliable",
    kinds: null,
    capacity: 4,
    queued: 4,
    skipped: 12,
  }], "only reliable subscribers are listed");
  equal(status.subscribers, 2);
  equal(status.published, 20);
  latest.close();
  sub.close();
  deepEqual(bus.status().reliable, []);
});

Deno.test("deliver: one handler call at a time, in order; the publisher never waits", async () => {
  const bus = new EventBus();
  const seen: number[] = [];
  let active = 0;
  let maxActive = 0;
  const gates: (() => void)[] = [];
  const delivery = bus.deliver(async (item) => {
    active++;
    maxActive = Math.max(maxActive, active);
    await new Promise<void>((resolve) => gates.push(resolve));
    seen.push(render(item)!);
    active--;
  }, { name: "plugin:ordered", capacity: 8 });
  for (let i = 1; i <= 5; i++) bus.publish(online(i)); // returns at once although the handler is stuck
  for (let i = 0; i < 5; i++) {
    while (gates.length === 0) await Promise.resolve();
    gates.shift()!();
  }
  await delivery.idle();
  deepEqual(seen, [1, 2, 3, 4, 5]);
  equal(maxActive, 1);
  deepEqual(delivery.status(), {
    name: "plugin:ordered",
    capacity: 8,
    queued: 0,
    delivered: 5,
    overflowed: 0,
    failures: 0,
  });
  await delivery.close();
  deepEqual(bus.status().deliveries, []);
});

Deno.test("deliver: a handler that cannot keep up gets a gap notice; the overflow is counted and logged", async () => {
  const records: string[] = [];
  const bus = new EventBus(Date.now, {
    log: new LogHub({ level: "warn", sink: (_line, r) => records.push(r.msg) }).logger(),
  });
  const seen: number[] = [];
  let release!: () => void;
  const blocked = new Promise<void>((resolve) => (release = resolve));
  const delivery = bus.deliver(async (item) => {
    if (render(item) === 1) await blocked;
    seen.push(render(item)!);
  }, { name: "plugin:slow", capacity: 3 });
  bus.publish(online(1)); // taken by the handler, which now blocks
  await Promise.resolve();
  for (let i = 2; i <= 7; i++) bus.publish(online(i)); // 2..4 queued, 5..7 refused
  equal(bus.status().deliveries[0]?.overflowed, 3);
  release();
  await delivery.idle();
  deepEqual(seen, [1, 2, 3, 4, -3]);
  equal(records.filter((m) => m.includes("cannot keep up")).length, 1);
  await delivery.close();
});

Deno.test("deliver: a failing handler is counted and delivery goes on; close stops it", async () => {
  const bus = new EventBus();
  const seen: number[] = [];
  const delivery = bus.deliver((item) => {
    if (render(item) === 2) throw new Error("plugin bug");
    seen.push(render(item)!);
  }, { name: "plugin:buggy" });
  for (let i = 1; i <= 3; i++) bus.publish(online(i));
  await delivery.idle();
  deepEqual(seen, [1, 3]);
  equal(delivery.status().failures, 1);
  equal(delivery.status().delivered, 3);
  await delivery.close();
  bus.publish(online(4));
  await Promise.resolve();
  deepEqual(seen, [1, 3], "nothing after close");
  equal(bus.subscriberCount, 0);
});
