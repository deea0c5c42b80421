/**
 * WebSocket messages are refused as they arrive (issue 14): `/api/ws` held
 * up to 64 MiB of each client message and `/ws/live` checked its 256-byte
 * limit only once the whole message was in. Deno 2.9.6's
 * `Deno.upgradeWebSocket` has no message-size option (its options are
 * `protocol`, `idleTimeout`, `socket`, `head`), so the HTTP port is served by
 * `node:http`, whose `upgrade` event hands the raw connection to the `ws`
 * library with a per-route `maxPayload`: a frame header announcing more is
 * answered with close code 1009 before its payload is read.
 *
 * Process test: the server is started as the README does (`deno task
 * start` flags), and a raw TCP client speaks the WebSocket framing.
 */
import { equal } from "node:assert/strict";
import { createDevApi, devToken } from "../src/upstream/mod.ts";
import { freePort, spawnServer } from "./support/child_server.ts";
import { waitUntil } from "./support/describe.ts";
import { startHttpHarness } from "./support/http.ts";
import { TestSocket } from "./support/ws.ts";

const encoder = new TextEncoder();

/** Opens a WebSocket on `path` by hand; resolves with the connection after the 101. */
async function handshake(port: number, path: string): Promise<Deno.TcpConn> {
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
function frameHeader(length: number): Uint8Array {
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
async function closeCode(conn: Deno.TcpConn, deadlineMs = 10_000): Promise<number | null> {
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

Deno.test("http /api/ws refuses a client message over its limit as it arrives (close 1009), server started as the README does", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-ws-limits-" });
  const dev = createDevApi();
  const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => dev.fetch(req));
  const port = freePort();
  const httpPort = freePort();
  const server = spawnServer({
    port,
    dataDir,
    upstream: `http://127.0.0.1:${upstream.addr.port}`,
    flags: [
      ...["--http-port", String(httpPort), "--http-bind-address", "127.0.0.1"],
      ...["--openuds.enabled=false", "--monitors", "[9]"],
    ],
  });
  try {
    await server.ready;
    // A 32 MiB message: only its header and 64 KiB of it are sent; the server must not wait for the rest.
    const big = await handshake(httpPort, "/api/ws");
    await big.write(frameHeader(32 << 20));
    await big.write(new Uint8Array(64 * 1024)).catch(() => 0);
    equal(await closeCode(big), 1009);
    // A live spectator socket: 1 MiB announced, far over its 256 bytes.
    const live = await handshake(httpPort, `/ws/live?token=${devToken(9)}`);
    await live.write(frameHeader(1 << 20));
    equal(await closeCode(live), 1009);
  } finally {
    server.child.kill("SIGTERM");
    await server.child.status;
    await server.done;
    await upstream.shutdown();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("http /ws/live closes with 1009 on a message over 256 bytes; smaller ones are read", async () => {
  const h = await startHttpHarness({ listen: true });
  try {
    const url = `${h.url.replace("http", "ws")}/ws/live?token=${encodeURIComponent(devToken(9))}`;
    const ok = await TestSocket.open(url);
    await waitUntil(() => ok.messages.length > 0, "Authenticate reply");
    ok.socket.send(new Uint8Array(200)); // within the limit: read, and refused as a malformed command
    await ok.closed;
    equal(ok.closeEvent?.code, 1007);
    const big = await TestSocket.open(url);
    await waitUntil(() => big.messages.length > 0, "Authenticate reply");
    big.socket.send(new Uint8Array(257));
    await big.closed;
    equal(big.closeEvent?.code, 1009);
  } finally {
    await h.close();
  }
});
