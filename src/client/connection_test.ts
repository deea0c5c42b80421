import { deepEqual, equal } from "node:assert/strict";
import type { ServerCommand } from "../protocol/mod.ts";
import { encodeServerCommand } from "../protocol/mod.ts";
import { type ByteConn, FrameConnection } from "./connection.ts";
import type { ClientError } from "./errors.ts";

/** An in-memory connection whose writes complete when the test says so. */
class MemoryConn implements ByteConn {
  writes: number[][] = [];
  #release: (() => void)[] = [];
  #reads: ((n: number | null) => void)[] = [];
  #incoming: Uint8Array[] = [];
  #buf: Uint8Array | null = null;
  closed = false;

  read(p: Uint8Array): Promise<number | null> {
    if (this.closed) return Promise.reject(new Deno.errors.BadResource("closed"));
    return new Promise((resolve) => {
      this.#buf = p;
      this.#reads.push(resolve);
      this.#pump();
    });
  }
  write(p: Uint8Array): Promise<number> {
    this.writes.push([...p]);
    // Accept at most 3 bytes per call, to exercise partial writes.
    const n = Math.min(3, p.length);
    return new Promise((resolve) => this.#release.push(() => resolve(n)));
  }
  close(): void {
    this.closed = true;
    for (const r of this.#reads.splice(0)) r(null);
    for (const r of this.#release.splice(0)) r();
  }
  /** Lets the oldest write finish. */
  releaseWrite(): void {
    this.#release.shift()?.();
  }
  /** Delivers bytes to the reader; null = EOF. */
  deliver(bytes: Uint8Array | null): void {
    if (bytes) this.#incoming.push(bytes);
    else this.#incoming.push(new Uint8Array(0));
    this.#pump();
  }
  #pump(): void {
    const next = this.#incoming.shift();
    const reader = this.#reads.shift();
    if (!reader || !next) {
      if (next) this.#incoming.unshift(next);
      if (reader) this.#reads.unshift(reader);
      return;
    }
    if (next.length === 0) return reader(null);
    this.#buf!.set(next);
    reader(next.length);
  }
}

const tick = () => new Promise<void>((r) => setTimeout(r, 0));

Deno.test("FrameConnection coalesces frames queued during a write and keeps their order", async () => {
  const mem = new MemoryConn();
  const got: ServerCommand[] = [];
  const ends: ClientError[] = [];
  const conn = new FrameConnection(mem, 1, { onCommand: (c) => got.push(c), onEnd: (e) => ends.push(e) }, {
    readBufferSize: 64,
    maxQueuedBytes: 1024,
  });
  conn.send(Uint8Array.of(0x01, 0x00));
  conn.send(Uint8Array.of(0x02, 0x02, 0x01));
  conn.send(Uint8Array.of(0x01, 0x0b));
  deepEqual(mem.writes, [[0x01]], "the version byte goes out alone");
  mem.releaseWrite();
  await tick();
  deepEqual(mem.writes.at(-1), [0x01, 0x00, 0x02, 0x02, 0x01, 0x01, 0x0b]);
  for (const rest of [[0x02, 0x01, 0x01, 0x0b], [0x0b]]) {
    mem.releaseWrite();
    await tick();
    deepEqual(mem.writes.at(-1), rest, "a partial write continues where it stopped");
  }
  mem.releaseWrite();
  await tick();
  equal(conn.queuedBytes, 0);

  const pong = encodeServerCommand({ type: "Pong" });
  const userVisit = encodeServerCommand({ type: "UserVisit", user: 7 });
  mem.deliver(new Uint8Array([...pong, ...userVisit.subarray(0, 2)]));
  await tick();
  mem.deliver(userVisit.subarray(2));
  await tick();
  deepEqual(got, [{ type: "Pong" }, { type: "UserVisit", user: 7 }]);
  mem.deliver(null);
  await tick();
  await conn.close(false);
  deepEqual(ends.map((e) => e.code), ["eof"]);
  equal(mem.closed, true);
});
