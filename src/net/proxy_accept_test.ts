import { deepEqual, equal } from "node:assert/strict";
import { EventEmitter } from "node:events";
import { ManualClock } from "../util/clock.ts";
import { readProxyHeader } from "./proxy_accept.ts";

/** A pushing stream like a socket: emits what the test feeds. */
class FakeStream extends EventEmitter {
  paused = false;
  pause(): this {
    this.paused = true;
    return this;
  }
}

const text = (s: string) => new TextEncoder().encode(s);

Deno.test("a PROXY v1 header cut across chunks gives the client address and hands back what follows", async () => {
  const stream = new FakeStream();
  const clock = new ManualClock();
  const result = readProxyHeader(stream, clock, 3000);
  stream.emit("data", text("PROXY TCP4 203.0.113.7 127.0.0.1 5000 "));
  stream.emit("data", text("12346\r\n\x01\x02"));
  const r = await result;
  equal(r.ok, true);
  if (r.ok) {
    equal(r.ip, "203.0.113.7");
    deepEqual([...r.rest], [1, 2]);
  }
  equal(stream.paused, true, "paused until the session reads on");
  equal(stream.listenerCount("data"), 0, "its listeners are removed");
});

Deno.test("bytes that are no PROXY header are handed back whole", async () => {
  const stream = new FakeStream();
  const result = readProxyHeader(stream, new ManualClock(), 3000);
  stream.emit("data", new Uint8Array([1, 2, 1, 0]));
  const r = await result;
  equal(r.ok && r.ip, null);
  if (r.ok) deepEqual([...r.rest], [1, 2, 1, 0]);
});

Deno.test("a proxy that says nothing in time, or closes first, is dropped with a reason", async () => {
  const clock = new ManualClock();
  const silent = readProxyHeader(new FakeStream(), clock, 3000);
  clock.advance(3000);
  deepEqual(await silent, { ok: false, reason: "PROXY header timed out" });
  const stream = new FakeStream();
  const closed = readProxyHeader(stream, clock, 3000);
  stream.emit("close");
  deepEqual(await closed, { ok: false, reason: "connection closed before any data" });
  const bad = new FakeStream();
  const invalid = readProxyHeader(bad, clock, 3000);
  bad.emit("data", text("PROXY TCP4 nonsense\r\n"));
  equal((await invalid).ok, false);
});
