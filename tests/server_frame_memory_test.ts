/**
 * Issue 14 "large frames pin memory", over real sockets: before login only
 * an `Authenticate`-sized frame is acceptable; after login a large frame is
 * buffered only while it is in flight; all sessions share one frame budget,
 * and the connection that wants more than is left is the one closed.
 */
import { equal, ok } from "node:assert/strict";
import { decodeServerCommand, encodeClientCommand, FrameDecoder, type ServerCommand } from "../src/protocol/mod.ts";
import { LOGIN_FRAME_MAX } from "../src/session/mod.ts";
import { devToken, type Harness, settle, startHarness } from "./support/harness.ts";

/** Reads server frames off a raw connection. */
class RawReader {
  readonly #conn: Deno.TcpConn;
  readonly #decoder = new FrameDecoder(256);
  readonly #buf = new Uint8Array(4096);
  constructor(conn: Deno.TcpConn) {
    this.#conn = conn;
  }
  /** The next command, or null once the server closed the connection. */
  async next(): Promise<ServerCommand | null> {
    for (;;) {
      const payload = this.#decoder.next();
      if (payload) return decodeServerCommand(payload);
      const n = await this.#conn.read(this.#buf).catch(() => null);
      if (n === null) return null;
      this.#decoder.push(this.#buf.subarray(0, n));
    }
  }
  /** Resolves true once the server closed the connection (frames before that are skipped). */
  async closed(): Promise<boolean> {
    while ((await this.next()) !== null) { /* skip */ }
    return true;
  }
}

/** A raw connection logged in as dev user `id`. */
async function rawLogin(h: Harness, id: number): Promise<{ conn: Deno.TcpConn; reader: RawReader }> {
  const conn = await h.raw();
  const reader = new RawReader(conn);
  await conn.write(new Uint8Array([1, ...encodeClientCommand({ type: "Authenticate", token: devToken(id) })]));
  const reply = await reader.next();
  equal(reply?.type, "Authenticate");
  ok(reply?.type === "Authenticate" && reply.result.ok, "logged in");
  return { conn, reader };
}

/** The prefix and the first `sent` bytes of a `Ping` padded to `length` bytes (padding is ignored, protocol.md §1). */
function bigPing(length: number): Uint8Array {
  const prefix: number[] = [];
  for (let v = length;; v >>>= 7) {
    if (v < 0x80) {
      prefix.push(v);
      break;
    }
    prefix.push((v & 0x7f) | 0x80);
  }
  const frame = new Uint8Array(prefix.length + length);
  frame.set(prefix);
  frame[prefix.length] = 0; // Ping
  return frame;
}

async function writeAll(conn: Deno.TcpConn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

/** Lets the server take what was written (node:net reads on later turns). */
async function until(check: () => boolean, rounds = 200): Promise<void> {
  for (let i = 0; i < rounds && !check(); i++) await settle(2);
  ok(check(), "condition reached");
}

Deno.test("before login a frame longer than the largest login command closes the connection, unbuffered", async () => {
  const h = await startHarness();
  const conn = await h.raw();
  const reader = new RawReader(conn);
  // 2 MiB - 1 announced (the issue 14 flood), then some of it.
  const flood = bigPing(2 * 1024 * 1024 - 1);
  await writeAll(conn, new Uint8Array([1, ...flood.subarray(0, 4096)]));
  ok(await reader.closed(), "closed");
  equal(h.server.frameBudget.used, 0, "nothing was buffered for it");
  equal(h.server.core.counters.values.malformed_frames, 1);
  const line = h.logs.history().find((r) => r.msg.startsWith("frame larger than any login command"));
  ok(line, "a clear log line");
  equal(line.fields.length, 2 * 1024 * 1024 - 1);
  equal(line.fields.limit, LOGIN_FRAME_MAX);

  // One byte over the bound is refused as well; the largest login command itself is answered.
  const over = await h.raw();
  await over.write(new Uint8Array([1, LOGIN_FRAME_MAX + 1, 1]));
  ok(await new RawReader(over).closed());
  const monitor = await h.raw();
  const key = encodeClientCommand({ type: "RoomMonitorAuthenticate", key: new Uint8Array(64).fill(7) });
  equal(key.length, 1 + LOGIN_FRAME_MAX);
  await monitor.write(new Uint8Array([1, ...key]));
  const reply = await new RawReader(monitor).next();
  ok(reply?.type === "Authenticate" && !reply.result.ok, "a wrong key is answered, not cut off for its size");
  await h.close();
});

Deno.test("after login a large frame is buffered only while in flight; the buffer is gone once it is consumed", async () => {
  const h = await startHarness();
  const { conn, reader } = await rawLogin(h, 1);
  const session = [...h.server.core.sessions].find((s) => s.userId === 1)!;
  equal(session.bufferedInput, 0, "an idle session buffers nothing");
  const size = 1024 * 1024;
  const ping = bigPing(size);
  const half = ping.length >> 1;
  await writeAll(conn, ping.subarray(0, half));
  await until(() => session.bufferedInput === size);
  equal(h.server.frameBudget.used, size, "the frame in flight is counted once, at its own size");
  await writeAll(conn, ping.subarray(half));
  equal((await reader.next())?.type, "Pong");
  equal(session.bufferedInput, 0, "shrunk back");
  equal(h.server.frameBudget.used, 0);
  // The session goes on as usual.
  await conn.write(encodeClientCommand({ type: "Ping" }));
  equal((await reader.next())?.type, "Pong");
  await h.close();
});

Deno.test("over the frame budget the connection that wants more is closed, not everybody", async () => {
  const h = await startHarness({ config: { frame_buffer_budget_mb: 1 } });
  const a = await rawLogin(h, 1);
  const b = await rawLogin(h, 2);
  const size = 700 * 1024;
  const pingA = bigPing(size);
  await writeAll(a.conn, pingA.subarray(0, 1000));
  await until(() => h.server.frameBudget.used === size);
  await writeAll(b.conn, bigPing(size).subarray(0, 1000));
  ok(await b.reader.closed(), "the second large frame does not fit: its connection is closed");
  equal(h.server.core.counters.values.frame_budget_exceeded, 1);
  ok(h.logs.history().some((r) => r.level === "warn" && r.msg.startsWith("frame buffer budget")));
  // The first connection is untouched: its frame completes and it keeps playing.
  await writeAll(a.conn, pingA.subarray(1000));
  equal((await a.reader.next())?.type, "Pong");
  equal(h.server.frameBudget.used, 0);
  await a.conn.write(encodeClientCommand({ type: "CreateRoom", id: "budget" }));
  let created = await a.reader.next();
  while (created?.type === "Message") created = await a.reader.next();
  ok(created?.type === "CreateRoom" && created.result.ok, `a normal game goes on: ${JSON.stringify(created)}`);
  await h.close();
});
