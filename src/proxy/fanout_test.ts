import { deepEqual, equal } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { Fanout } from "./fanout.ts";
import type { RoomStreamEvent } from "./room_cache.ts";

const decoder = new TextDecoder();

/** Reads what the body has produced so far (one chunk), or null at its end. */
async function chunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string | null> {
  const { value, done } = await reader.read();
  return done ? null : decoder.decode(value);
}

const ev = (name: RoomStreamEvent["name"], room: string): RoomStreamEvent => ({ name, data: { room } });

Deno.test("Fanout: retry and snapshot first, then live events in order, each framed once", async () => {
  const clock = new ManualClock();
  const f = new Fanout({ clock });
  const body = f.open([ev("create_room", "a"), ev("create_room", "b")])!;
  const reader = body.getReader();
  f.publish([ev("join_room", "a"), ev("leave_room", "b")]);
  equal(
    await chunk(reader),
    'retry: 2000\n\nevent: create_room\ndata: {"room":"a"}\n\nevent: create_room\ndata: {"room":"b"}\n\n' +
      'event: join_room\ndata: {"room":"a"}\n\nevent: leave_room\ndata: {"room":"b"}\n\n',
  );
  f.publish([ev("update_room", "a")]);
  equal(await chunk(reader), 'event: update_room\ndata: {"room":"a"}\n\n');
  deepEqual(f.stats, { subscribers: 1, delivered: 3, cutOff: 0 });
  await reader.cancel();
  equal(f.size, 0);
});

Deno.test("Fanout: keep-alive comments on one shared timer, only to idle streams", async () => {
  const clock = new ManualClock();
  const f = new Fanout({ clock, keepAliveMs: 15_000 });
  const r1 = f.open([])!.getReader();
  const r2 = f.open([])!.getReader();
  equal(await chunk(r1), "retry: 2000\n\n");
  equal(await chunk(r2), "retry: 2000\n\n");
  clock.advance(15_000);
  equal(await chunk(r1), ": keep-alive\n\n");
  equal(await chunk(r2), ": keep-alive\n\n");
  clock.advance(15_000);
  equal(await chunk(r1), ": keep-alive\n\n");
  await r1.cancel();
  await r2.cancel();
  equal(clock.pending, 0);
});

Deno.test("Fanout: a subscriber that does not read is cut off with stream_lagged; the others go on", async () => {
  const clock = new ManualClock();
  const f = new Fanout({ clock, capacity: 3, graceMs: 5000 });
  const slow = f.open([])!.getReader();
  const fast = f.open([])!.getReader();
  equal(await chunk(fast), "retry: 2000\n\n");
  for (let i = 0; i < 6; i++) {
    f.publish([ev("update_room", `r${i}`)]);
    equal(await chunk(fast), `event: update_room\ndata: {"room":"r${i}"}\n\n`);
  }
  equal(f.stats.cutOff, 1);
  // The slow one gets what was already in flight, the notice of what it missed, then its stream ends;
  // EventSource reconnects for a fresh snapshot.
  equal(await chunk(slow), "retry: 2000\n\n");
  equal(await chunk(slow), 'event: stream_lagged\ndata: {"skipped":5}\n\n');
  equal(await chunk(slow), null);
  equal(f.size, 1);
  await fast.cancel();
});

Deno.test("Fanout: endAll lets streams drain then end; a stream that never reads is cut after the grace time", async () => {
  const clock = new ManualClock();
  const f = new Fanout({ clock, graceMs: 5000 });
  const reading = f.open([ev("create_room", "a")])!.getReader();
  const stuck = f.open([])!;
  f.endAll();
  equal(await chunk(reading), 'retry: 2000\n\nevent: create_room\ndata: {"room":"a"}\n\n');
  equal(await chunk(reading), null);
  equal(f.size, 1);
  clock.advance(5000);
  equal(f.size, 0);
  // Only the one chunk the body had already taken is left; then it ends.
  const r = stuck.getReader();
  equal(await chunk(r), "retry: 2000\n\n");
  equal(await chunk(r), null);
});

Deno.test("Fanout: closeAll ends every stream at once; the subscriber limit answers null", async () => {
  const clock = new ManualClock();
  const f = new Fanout({ clock, maxSubscribers: 2 });
  const a = f.open([])!.getReader();
  const b = f.open([])!;
  equal(f.open([]), null);
  f.closeAll();
  equal(f.size, 0);
  equal(await chunk(a), null);
  equal((await b.getReader().read()).done, true);
  equal(f.open([]) !== null, true);
  f.closeAll();
});
