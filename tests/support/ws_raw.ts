/**
 * A WebSocket peer speaking the framing by hand over TCP, for tests that
 * send what a browser never would (a frame header announcing more than a
 * route accepts, issue 14) and read the server's close frame.
 *
 * @module
 */

import { equal } from "node:assert/strict";

const encoder = new TextEncoder();

/** Opens a WebSocket on `path` by hand; resolves with the connection after the 101. */
export async function handshake(port: number, path: string): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(encoder.encode(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
  ));
  let head = "";
  const buf = new Uint8Array(4096);
  while (!head.includes("\r\n\r\n")) {
    const n = await conn.read(buf);
    if (n === null) throw new Error(`closed during the handshake: ${head}`);
    head += new TextDecoder().decode(buf.subarray(0, n));
  }
  equal(head.split("\r\n")[0], "HTTP/1.1 101 Switching Protocols");
  return conn;
}

/** A masked binary frame header announcing `length` payload bytes (the payload follows separately). */
export function frameHeader(length: number): Uint8Array {
  const h = new Uint8Array(14);
  h[0] = 0x82;
  h[1] = 0x80 | 127;
  new DataView(h.buffer).setBigUint64(2, BigInt(length));
  return h; // mask key 0
}

/**
 * Reads what the server sends until it closes; returns the close code of its close frame, or null. Fails after
 * `deadlineMs` (a deadline for the failure case, not a wait for the behaviour).
 */
export async function closeCode(conn: Deno.TcpConn, deadlineMs = 10_000): Promise<number | null> {
  const chunks: number[] = [];
  const read = (async () => {
    const buf = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      chunks.push(...buf.subarray(0, n));
    }
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), deadlineMs)));
  const outcome = await Promise.race([read.then(() => "closed" as const), late]);
  clearTimeout(timer);
  if (outcome === "late") {
    conn.close();
    await read;
    throw new Error("the server kept reading the oversized message");
  }
  // Skip data frames (the `ready` event) to the close frame (opcode 8).
  for (let i = 0; i + 1 < chunks.length;) {
    const op = chunks[i]! & 0x0f;
    let len = chunks[i + 1]! & 0x7f;
    let at = i + 2;
    if (len === 126) [len, at] = [(chunks[at]! << 8) | chunks[at + 1]!, at + 2];
    if (op === 8) return (chunks[at]! << 8) | chunks[at + 1]!;
    i = at + len;
  }
  return null;
}
