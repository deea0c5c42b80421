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
import { closeCode, frameHeader, handshake } from "./support/ws_raw.ts";

Deno.test("http /api/ws refuses a client message over its limit as it arrives (close 1009), server started as the README does", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-ws-limits-" });
  const dev = createDevApi();
  const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => dev.fetch(req));
  const port = freePort();
  const httpPort = freePort(50, [port]);
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
