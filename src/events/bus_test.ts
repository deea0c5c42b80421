import { deepEqual, equal } from "node:assert/strict";
import { EventBus } from "./bus.ts";
import { LogHub } from "../util/log.ts";
import type { DomainEventInput } from "./types.ts";

const online = (user: number): DomainEventInput => ({
  kind: "user.online",
  user,
  name: `u${user}`,
  language: "en-US",
  ip: null,
});
const touches = (user: number): DomainEventInput => ({
  kind: "touches",
  room: "r",
  uuid: "u",
  hidden: false,
  user,
  round: null,
  frames: [],
});

Deno.test("EventBus stamps a global sequence and time", () => {
  const bus = new EventBus(() => 42);
  const a = bus.publish(online(1));
  const b = bus.publish(online(2));
  deepEqual([a.seq, b.seq, a.time], [1, 2, 42]);
});

Deno.test("a lagging subscriber gets lagged {skipped} once and then the newest events", async () => {
  const bus = new EventBus();
  const sub = bus.subscribe({ capacity: 3 });
  for (let i = 1; i <= 5; i++) bus.publish(online(i));
  deepEqual(await sub.next(), { type: "lagged", skipped: 2 });
  const users = [];
  for (let item = sub.tryNext(); item; item = sub.tryNext()) {
    if (item.type === "event" && item.event.kind === "user.online") users.push(item.event.user);
  }
  deepEqual(users, [3, 4, 5]);
  equal(sub.totalSkipped, 2);
  sub.close();
});

Deno.test("a waiting reader is resolved directly and close ends it with null", async () => {
  const bus = new EventBus();
  const sub = bus.subscribe();
  const pending = sub.next();
  bus.publish(online(7));
  const item = await pending;
  equal(item?.type === "event" && item.event.kind, "user.online");
  const ended = sub.next();
  sub.close();
  equal(await ended, null);
  equal(bus.subscriberCount, 0);
});

Deno.test("telemetry reaches only subscribers that name it", () => {
  const bus = new EventBus();
  const all = bus.subscribe();
  const tele = bus.subscribe({ kinds: ["touches"] });
  equal(bus.wants("touches"), true);
  bus.publish(touches(1));
  bus.publish(online(1));
  equal(all.size, 1);
  equal(tele.size, 1);
  tele.close();
  equal(bus.wants("touches"), false);
  all.close();
});

Deno.test("listeners get telemetry only when they ask for it", () => {
  const bus = new EventBus();
  const plain: string[] = [];
  const all: string[] = [];
  const stopPlain = bus.listen((e) => plain.push(e.kind));
  equal(bus.wants("touches"), false, "a plain listener does not make the relay build telemetry events");
  const stopAll = bus.listen((e) => all.push(e.kind), { telemetry: true });
  equal(bus.wants("touches"), true);
  bus.publish(touches(1));
  bus.publish(online(1));
  deepEqual(plain, ["user.online"]);
  deepEqual(all, ["touches", "user.online"]);
  stopAll();
  equal(bus.wants("touches"), false);
  stopPlain();
});

Deno.test("filters apply at publish time and listeners see everything", () => {
  const bus = new EventBus();
  const seen: string[] = [];
  const stop = bus.listen((e) => seen.push(e.kind));
  const onlyEven = bus.subscribe({ filter: (e) => e.kind === "user.online" && e.user % 2 === 0 });
  bus.publish(online(1));
  bus.publish(online(2));
  equal(onlyEven.size, 1);
  deepEqual(seen, ["user.online", "user.online"]);
  stop();
  onlyEven.close();
});

Deno.test("a throwing listener is contained: later listeners and subscribers still get the event, failures are counted and logged once per type", () => {
  const logged: { msg: string; fields: Record<string, unknown> }[] = [];
  const logs = new LogHub({ level: "debug", sink: () => {} });
  const log = logs.logger();
  const capture: typeof log = {
    ...log,
    error: (msg, fields = {}) => void logged.push({ msg, fields: fields as Record<string, unknown> }),
  };
  const bus = new EventBus(() => 0, { log: capture });
  const sub = bus.subscribe();
  const seen: number[] = [];
  bus.listen(() => {
    throw new Error("boom");
  });
  bus.listen((e) => {
    if (e.kind === "user.online") seen.push(e.user);
  });
  // publish returns normally: the publisher (a command handler) is not aborted.
  equal(bus.publish(online(1)).seq, 1);
  bus.publish(online(2));
  bus.publish({ kind: "user.offline", user: 2, name: "u2" });
  deepEqual(seen, [1, 2]);
  equal(sub.size, 3);
  equal(bus.listenerFailures, 3);
  deepEqual(logged.map((l) => [l.fields.event, l.fields.error]), [["user.online", "boom"], ["user.offline", "boom"]]);
  sub.close();
});

Deno.test("a throwing telemetry listener is contained too", () => {
  const bus = new EventBus(() => 0);
  bus.listen(() => {
    throw new TypeError("bad frame");
  }, { telemetry: true });
  bus.publish(touches(1));
  equal(bus.listenerFailures, 1);
});

Deno.test("a telemetry input becomes the event itself, stamped in place: publishing never reads its frames", () => {
  const bus = new EventBus(() => 7);
  let reads = 0;
  const input: DomainEventInput = {
    kind: "touches",
    room: "r",
    uuid: "u",
    hidden: false,
    user: 1,
    round: null,
    get frames() {
      reads++;
      return [];
    },
    count: 3,
  };
  const seen: unknown[] = [];
  bus.listen((e) => seen.push(e), { telemetry: true });
  const sub = bus.subscribe({ kinds: ["touches"] });
  const event = bus.publish(input);
  equal(event, input);
  deepEqual([event.seq, event.time, reads], [1, 7, 0]);
  deepEqual(seen, [event]);
  deepEqual(sub.tryNext(), { type: "event", event });
  // Other kinds are still copied: their publishers may reuse an input.
  const other = online(2);
  const copy = bus.publish(other);
  deepEqual([copy === other, "seq" in other], [false, false]);
});
