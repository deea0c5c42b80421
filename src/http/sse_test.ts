import { deepEqual, equal } from "node:assert/strict";
import { EventBus } from "../events/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { laggedEvent, sseComment, sseEvent, SseStream, StreamTracker } from "./sse.ts";

const decoder = new TextDecoder();

function setup(capacity = 3) {
  const clock = new ManualClock();
  const bus = new EventBus(() => clock.now());
  const subscription = bus.subscribe({ kinds: ["room.deleted"], capacity });
  let closed = 0;
  const stream = new SseStream({
    subscription,
    initial: [sseEvent("ready", {})],
    render: (e) => e.kind === "room.deleted" && e.room !== "skip" ? sseEvent("gone", { room: e.room }) : null,
    keepAlive: sseComment("keep-alive"),
    keepAliveMs: 15_000,
    clock,
    onClose: () => closed++,
  });
  const reader = stream.body.getReader();
  const read = async () => {
    const { value, done } = await reader.read();
    return done ? null : decoder.decode(value);
  };
  const gone = (room: string) => bus.publish({ kind: "room.deleted", room, uuid: "u", hidden: false });
  return { clock, bus, stream, reader, read, gone, closed: () => closed };
}

Deno.test("sse frames: event and data lines, comments, lag notice", () => {
  equal(sseEvent("update_room", { room: "a\nb" }), 'event: update_room\ndata: {"room":"a\\nb"}\n\n');
  equal(sseComment("keep-alive"), ": keep-alive\n\n");
  equal(laggedEvent(4), 'event: stream_lagged\ndata: {"skipped":4}\n\n');
});

Deno.test("SseStream sends the initial frames, then events as they come; render null skips", async () => {
  const s = setup();
  equal(await s.read(), "event: ready\ndata: {}\n\n");
  s.gone("skip");
  s.gone("a");
  equal(await s.read(), 'event: gone\ndata: {"room":"a"}\n\n');
  await s.reader.cancel();
});

Deno.test("SseStream keeps unread events in the bounded buffer and reports what it dropped", async () => {
  const s = setup(3);
  await s.read();
  for (const room of ["a", "b", "c", "d", "e", "f"]) s.gone(room);
  const frames = [];
  for (let i = 0; i < 5; i++) frames.push(await s.read());
  deepEqual(frames, [
    'event: gone\ndata: {"room":"a"}\n\n',
    laggedEvent(2),
    'event: gone\ndata: {"room":"d"}\n\n',
    'event: gone\ndata: {"room":"e"}\n\n',
    'event: gone\ndata: {"room":"f"}\n\n',
  ]);
  await s.reader.cancel();
});

Deno.test("SseStream sends a keep-alive every interval of the clock", async () => {
  const s = setup();
  await s.read();
  const pending = s.read();
  s.clock.advance(15_000);
  equal(await pending, ": keep-alive\n\n");
  s.clock.advance(15_000);
  equal(await s.read(), ": keep-alive\n\n");
  await s.reader.cancel();
});

Deno.test("SseStream cancel and close release the subscription and the timer once", async () => {
  const a = setup();
  equal(a.bus.subscriberCount, 1);
  equal(a.clock.pending, 1);
  await a.read();
  const pending = a.read();
  await a.reader.cancel();
  equal(await pending, null);
  equal(a.bus.subscriberCount, 0);
  equal(a.clock.pending, 0);
  equal(a.closed(), 1);
  const b = setup();
  await b.read();
  b.stream.close();
  b.stream.close();
  equal(await b.read(), null);
  equal(b.bus.subscriberCount, 0);
  equal(b.clock.pending, 0);
  equal(b.closed(), 1);
});

Deno.test("StreamTracker bounds open streams and closes them all", async () => {
  const tracker = new StreamTracker(2);
  const closed: string[] = [];
  const make = (name: string) => ({ close: () => void closed.push(name) });
  equal(tracker.tryAdd(make("a"), "192.0.2.1"), true);
  const b = make("b");
  equal(tracker.tryAdd(b, "192.0.2.2"), true);
  equal(tracker.tryAdd(make("c"), "192.0.2.3"), false);
  tracker.delete(b);
  equal(tracker.tryAdd(make("d"), "192.0.2.3"), true);
  await tracker.closeAll();
  deepEqual(closed, ["a", "d"]);
  equal(tracker.size, 0);
});

Deno.test("StreamTracker gives each client (an IPv6 /64) its share", () => {
  const tracker = new StreamTracker(10, 2);
  const s = () => ({ close: () => {} });
  const first = s();
  equal(tracker.tryAdd(first, "2001:db8::1"), true);
  equal(tracker.tryAdd(s(), "2001:db8::2"), true);
  equal(tracker.refusal("2001:db8::3"), "client-full");
  equal(tracker.tryAdd(s(), "2001:db8::3"), false);
  equal(tracker.tryAdd(s(), "2001:db8:0:1::3"), true);
  tracker.delete(first);
  equal(tracker.refusal("2001:db8::3"), null);
  // This host (a reverse proxy on the plain port, where everyone is 127.0.0.1) is bounded by the total only.
  for (let i = 0; i < 5; i++) equal(tracker.tryAdd(s(), "127.0.0.1"), true);
});
