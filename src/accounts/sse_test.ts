import { deepEqual, equal } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { SseChannel, sseComment, SseHub, sseJson, sseText } from "./sse.ts";

async function read(channel: SseChannel, n: number): Promise<string> {
  const reader = channel.body.getReader();
  let out = "";
  for (let i = 0; i < n; i++) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return out;
}

Deno.test("frames: JSON data on one line, text data without line breaks, comments", () => {
  equal(sseJson("a", { x: "1\n2" }), 'event: a\ndata: {"x":"1\\n2"}\n\n');
  equal(sseText("error", "two\nlines\r\n"), "event: error\ndata: two lines \n\n");
  equal(sseComment("heartbeat"), ": heartbeat\n\n");
});

Deno.test("channel: bounded queue with a lag notice, keep-alives only when idle, end flushes", async () => {
  const clock = new ManualClock();
  let closed = 0;
  const c = new SseChannel({ clock, capacity: 2, keepAlive: ": ka\n\n", keepAliveMs: 10, onClose: () => closed++ });
  c.push("1");
  c.push("2");
  c.push("3");
  equal(c.queued, 2);
  clock.advance(10);
  equal(c.queued, 2, "no keep-alive behind a backlog");
  equal(await read(c, 3), 'event: stream_lagged\ndata: {"skipped":1}\n\n23');
  clock.advance(10);
  equal(await read(c, 1), ": ka\n\n");
  c.push("last");
  c.end();
  equal(c.push("late"), false);
  equal(await read(c, 2), "last");
  equal(closed, 1);
  equal(clock.pending, 0, "the keep-alive timer is gone");
});

Deno.test("hub: limited, broadcast, cancel forgets, closeAll ends", async () => {
  const clock = new ManualClock();
  const hub = new SseHub(2);
  const make = () => {
    const ch: SseChannel = new SseChannel({ clock, keepAlive: null, keepAliveMs: 0, onClose: () => hub.delete(ch) });
    return ch;
  };
  const a = make();
  const b = make();
  equal(hub.tryAdd(a, "198.51.100.1"), true);
  equal(hub.tryAdd(b, "198.51.100.2"), true);
  equal(hub.tryAdd(make(), "198.51.100.3"), false);
  hub.broadcast("x");
  deepEqual([a.queued, b.queued], [1, 1]);
  await a.body.cancel();
  equal(hub.size, 1);
  hub.closeAll();
  equal(b.closed, true);
  equal(hub.size, 0);
});

Deno.test("sse hub: one client address stops at its share (IPv6 by /64); others still get streams", () => {
  const clock = new ManualClock();
  const hub = new SseHub(256);
  const make = () => new SseChannel({ clock, keepAlive: null, keepAliveMs: 0 });
  equal(hub.perClient, 8);
  for (let i = 0; i < hub.perClient; i++) equal(hub.tryAdd(make(), `2001:db8:0:7::${i + 1}`), true);
  equal(hub.refusal("2001:db8:0:7:ffff::1"), "client-full");
  equal(hub.tryAdd(make(), "2001:db8:0:7:ffff::1"), false);
  equal(hub.tryAdd(make(), "198.51.100.9"), true);
  equal(hub.size, hub.perClient + 1);
  hub.closeAll();
  equal(hub.size, 0);
  equal(hub.tryAdd(make(), "2001:db8:0:7::1"), true, "closed streams give their slots back");
});
