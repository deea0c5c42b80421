/**
 * One HTTP listener (`node:http`): requests go to the application's `fetch`
 * through `@hono/node-server`'s adapter; WebSocket upgrades go through the
 * application too (its route checks and answers), and when the route asked
 * for an upgrade (`ws_upgrade.ts`) the `ws` library takes the raw
 * connection with that route's message limit, enforced as frames arrive.
 *
 * Why not `Deno.serve`: its WebSocket upgrade has no message-size option
 * and buffers whole messages (up to 64 MiB) before the application sees a
 * byte (issue 14); `node:http` is the only listener in Deno 2.9.6 that hands
 * over the upgraded connection itself. The cost is the adapter: a plain
 * request takes about four times the server CPU (~60 µs instead of ~17 µs,
 * BENCHMARKS.md "HTTP listener").
 *
 * @module
 */

import http from "node:http";
import type { Duplex } from "node:stream";
import { Buffer } from "node:buffer";
import { getRequestListener } from "@hono/node-server";
// @ts-types="@types/ws"
import type { WebSocketServer } from "ws";
import type { HttpEnv } from "./context.ts";
import type { WsUpgrades } from "./ws_upgrade.ts";

type Bindings = HttpEnv["Bindings"];

/** How long `close()` lets requests in flight finish before it cuts their connections. */
const CLOSE_GRACE_MS = 5000;

/** What a listener serves and how it learns the client. */
export interface FrontOptions {
  readonly hostname: string;
  readonly port: number;
  readonly fetch: (req: Request, env: Bindings) => Response | Promise<Response>;
  /** The bindings of a request from `peer` (its socket address) with these headers. */
  readonly env: (peer: string, headers: Headers) => Bindings;
  readonly upgrades: WsUpgrades;
  /** Answers a request whose handler threw. */
  readonly onError: (error: unknown) => Response;
}

/** A listening front. */
export interface Front {
  /** The bound port. */
  readonly port: number;
  /** Stops listening and closes every connection (streams should be ended first). */
  close(): Promise<void>;
}

/** The request of an upgrade event, as the application sees requests. */
function upgradeRequest(incoming: http.IncomingMessage, hostname: string, port: number): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
    headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
  }
  const host = headers.get("host") ?? `${hostname}:${port}`;
  return new Request(new URL(incoming.url ?? "/", `http://${host}`), { method: incoming.method ?? "GET", headers });
}

/** Writes a complete HTTP response on a raw connection and closes it (an upgrade the route refused). */
async function answerRaw(socket: Duplex, res: Response): Promise<void> {
  const body = new Uint8Array(await res.arrayBuffer());
  let head = `HTTP/1.1 ${res.status} ${http.STATUS_CODES[res.status] ?? ""}\r\n`;
  res.headers.forEach((value, name) => {
    if (name !== "content-length" && name !== "transfer-encoding" && name !== "connection") {
      head += `${name}: ${value}\r\n`;
    }
  });
  head += `content-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), body]));
}

/** Starts a listener; resolves once it is bound (rejects when it cannot bind). */
export function startFront(o: FrontOptions): Promise<Front> {
  const listener = getRequestListener(
    (request, bindings) => {
      const incoming = (bindings as { incoming: http.IncomingMessage }).incoming;
      return o.fetch(request, o.env(incoming.socket.remoteAddress ?? "unknown", request.headers));
    },
    { overrideGlobalObjects: false, errorHandler: (error) => o.onError(error) },
  );
  // No Nagle delay: a response's head and body may go out in separate writes (measured: p50 22 ms without).
  const server = http.createServer({ noDelay: true }, listener);
  /** One `ws` server per message limit (`noServer`: the upgrade event hands connections over). */
  const wsServers = new Map<number, WebSocketServer>();
  // `ws` is loaded with the first upgrade, not with the listener (issue 15, "Load on demand").
  let wsModule: Promise<typeof import("ws")> | null = null;
  const wsServer = async (maxPayload: number) => {
    const { WebSocketServer } = await (wsModule ??= import("ws"));
    let wss = wsServers.get(maxPayload);
    if (!wss) {
      wsServers.set(maxPayload, wss = new WebSocketServer({ noServer: true, maxPayload, clientTracking: true }));
    }
    return wss;
  };
  server.on("upgrade", async (incoming: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => {}); // a peer that went away; the stream's close handler cleans up
    let res: Response;
    const request = upgradeRequest(incoming, o.hostname, o.port);
    try {
      res = await o.fetch(request, o.env(incoming.socket.remoteAddress ?? "unknown", request.headers));
    } catch (error) {
      res = o.onError(error);
    }
    const pending = o.upgrades.take(request);
    if (!pending) return void answerRaw(socket, res).catch(() => socket.destroy());
    await res.body?.cancel();
    // `ws` checks the handshake (answering 400 itself) and then every frame header against the limit.
    (await wsServer(pending.maxMessageBytes)).handleUpgrade(incoming, socket, head, (ws) => {
      // A refused frame (too large, malformed): `ws` sends its close frame and would go on reading (and discarding)
      // until the peer answers or 30 s pass. Stop reading instead, and end the connection once the frame is out.
      ws.once("error", () =>
        setImmediate(() => {
          socket.pause();
          socket.end();
        }));
      pending.open(ws);
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.hostname, () => {
      server.off("error", reject);
      const port = (server.address() as { port: number }).port;
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            for (const wss of wsServers.values()) for (const ws of wss.clients) ws.terminate();
            // Requests in flight may finish (like Deno.serve's shutdown), for at most CLOSE_GRACE_MS.
            const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
            server.close(() => {
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
