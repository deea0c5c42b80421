import { deepEqual, equal } from "node:assert/strict";
import { type ByteSink, OutboundQueue } from "./outbound.ts";

/** A sink whose writes complete only when released, like a client that stopped reading. */
class GatedSink implements ByteSink {
  writes: number[][] = [];
  #release: (() => void)[] = [];
  gated = true;
  write(bytes: Uint8Array): Promise<number> {
    this.writes.push([...bytes]);
    if (!this.gated) return Promise.resolve(bytes.length);
    return new Promise((resolve) => this.#release.push(() => resolve(bytes.length)));
  }
  release(): void {
    for (const r of this.#release.splice(0)) r();
  }
}

const frame = (...bytes: number[]) => new Uint8Array(bytes);

Deno.test("OutboundQueue coalesces frames queued during a write and reports flushes in order", async () => {
  const sink = new GatedSink();
  const q = new OutboundQueue(sink);
  const first = q.push(frame(1));
  const second = q.push(frame(2, 2));
  const third = q.push(frame(3));
  const flushed = q.flushed(third);
  equal(sink.writes.length, 1);
  sink.release();
  await Promise.resolve();
  await Promise.resolve();
  sink.release();
  equal(await flushed, true);
  deepEqual(sink.writes, [[1], [2, 2, 3]]);
  deepEqual([first, second, third, q.flushedSeq], [1, 2, 3, 3]);
  await q.drained();
  equal(q.pendingBytes, 0);
});

Deno.test("OutboundQueue stops with overflow when a client does not read", async () => {
  const sink = new GatedSink();
  const stops: string[] = [];
  const q = new OutboundQueue(sink, { maxFrames: 3, maxBytes: 100 }, (reason) => stops.push(reason));
  q.push(frame(1));
  const waiting = q.flushed(q.push(frame(2)));
  q.push(frame(3));
  q.push(frame(4));
  equal(q.push(frame(5)), 0);
  deepEqual(stops, ["overflow"]);
  equal(q.stopped, "overflow");
  equal(await waiting, false);
  sink.release();
});

Deno.test("OutboundQueue enforces the byte limit and reports write errors", async () => {
  const stops: string[] = [];
  const q = new OutboundQueue(
    { write: () => Promise.reject(new Error("broken pipe")) },
    { maxBytes: 4 },
    (r) => stops.push(r),
  );
  const seq = q.push(frame(1, 2));
  equal(await q.flushed(seq), false);
  deepEqual(stops, ["write-error"]);
  const big = new OutboundQueue({ write: (b) => Promise.resolve(b.length) }, { maxBytes: 4 }, (r) => stops.push(r));
  equal(big.push(new Uint8Array(5)), 0);
  deepEqual(stops, ["write-error", "overflow"]);
});

Deno.test("OutboundQueue.close discards frames without calling onStop", async () => {
  const sink = new GatedSink();
  const stops: string[] = [];
  const q = new OutboundQueue(sink, {}, (r) => stops.push(r));
  const seq = q.push(frame(1));
  q.close();
  equal(await q.flushed(seq), false);
  equal(q.push(frame(2)), 0);
  deepEqual(stops, []);
  sink.release();
});

/** A socket-like sink: keeps what it was handed until `flush`. */
class FakeSocket {
  handed: Uint8Array[] = [];
  #pending: { frame: Uint8Array; done: (error?: Error | null) => void }[] = [];
  get buffered(): number {
    return this.#pending.reduce((n, p) => n + p.frame.length, 0);
  }
  send(frame: Uint8Array, done: (error?: Error | null) => void): void {
    this.handed.push(frame);
    this.#pending.push({ frame, done });
  }
  flush(error?: Error): void {
    for (const p of this.#pending.splice(0)) p.done(error ?? null);
  }
}

Deno.test("OutboundQueue on a stream sink hands each frame over as it is (no copy per recipient)", async () => {
  const frame = new Uint8Array([3, 1, 2, 3]);
  const a = new FakeSocket();
  const b = new FakeSocket();
  const qa = new OutboundQueue(a);
  const qb = new OutboundQueue(b);
  equal(qa.push(frame), 1);
  equal(qb.push(frame), 1);
  equal(qa.push(frame), 2);
  equal(a.handed[0], frame, "the very bytes, not a copy");
  equal(a.handed[1], frame);
  equal(b.handed[0], frame);
  equal(qa.pendingFrames, 2);
  equal(qa.pendingBytes, 8);
  const flushed = qa.flushed(2);
  const drained = qa.drained();
  a.flush();
  equal(await flushed, true);
  await drained;
  equal(qa.flushedSeq, 2);
  equal(qa.pendingFrames, 0);
});

Deno.test("OutboundQueue on a stream sink stops a slow reader over its byte budget, and on a write error", () => {
  const slow = new FakeSocket();
  const stops: string[] = [];
  const q = new OutboundQueue(slow, { maxBytes: 10 }, { outboundStopped: (reason) => void stops.push(reason) });
  equal(q.push(new Uint8Array(6)), 1);
  equal(q.push(new Uint8Array(6)), 0, "the socket still holds 6 of 10 bytes");
  deepEqual(stops, ["overflow"]);
  const failing = new FakeSocket();
  const q2 = new OutboundQueue(failing, {}, (reason) => void stops.push(reason));
  q2.push(new Uint8Array(2));
  failing.flush(new Error("reset"));
  deepEqual(stops, ["overflow", "write-error"]);
});
