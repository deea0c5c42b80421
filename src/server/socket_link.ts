/**
 * The game port's edge on Deno's `node:net` (issue 15: 6.2 KiB of native
 * memory per connection against 13.6 KiB for a `Deno.Conn` with a read
 * pending). A socket pushes what it receives into its session
 * (`Session.data`/`end`) through listener functions shared by every socket
 * (`this` is the socket; no closures per connection), and takes every
 * outgoing frame as it is into its own write buffer: a broadcast writes the
 * same bytes to each recipient, never a copy. The frames of one event-loop
 * turn go out in one write (`write_batch.ts`).
 *
 * @module
 */

import net from "node:net";
import type { PushLink, Session } from "../session/session.ts";
import type { Logger } from "../util/log.ts";
import type { WriteBatch } from "./write_batch.ts";

/** Where a socket's events go once its session exists. */
const SESSION = Symbol("chorus.session");

type BoundSocket = net.Socket & { [SESSION]?: Session };

/** A socket as a session's {@link PushLink}. */
export class SocketLink implements PushLink {
  readonly #socket: net.Socket;
  readonly #batch: WriteBatch;

  constructor(socket: net.Socket, batch: WriteBatch) {
    this.#socket = socket;
    this.#batch = batch;
  }

  /** Bytes handed to the socket and not yet written to the kernel. */
  get buffered(): number {
    return this.#socket.writableLength;
  }

  send(frame: Uint8Array, done: (error?: Error | null) => void): void {
    this.#batch.write(this.#socket, frame, done);
  }

  pause(): void {
    this.#socket.pause();
  }

  resume(): void {
    this.#socket.resume();
  }

  close(): void {
    this.#socket.destroy();
  }
}

function onData(this: BoundSocket, chunk: Uint8Array): void {
  this[SESSION]?.data(chunk);
}

function onEnd(this: BoundSocket): void {
  this[SESSION]?.end();
}

function onError(this: BoundSocket, error: Error): void {
  this[SESSION]?.end(error);
}

/**
 * A new connection: errors are handled from the first moment (an unhandled
 * socket error would end the process), and the socket reads nothing until
 * {@link bindSession}.
 */
export function adoptSocket(socket: net.Socket): void {
  socket.on("error", onError);
  try {
    socket.setNoDelay(true);
  } catch {
    // Connection already gone.
  }
}

/**
 * Routes `socket`'s input into `session`, first the bytes read before it
 * existed (`first`, after a PROXY header), then what arrives.
 */
export function bindSession(socket: net.Socket, session: Session, first: Uint8Array | null): void {
  const bound = socket as BoundSocket;
  bound[SESSION] = session;
  socket.on("data", onData);
  socket.on("end", onEnd);
  socket.on("close", onEnd);
  // Data events come on later turns: `first` is split before any of them.
  socket.resume();
  if (first && first.length) session.data(first);
}

/** The listener's address as Deno reports one. */
export function netAddr(server: net.Server): Deno.NetAddr | null {
  const a = server.address();
  if (!a || typeof a === "string") return null;
  return { transport: "tcp", hostname: a.address, port: a.port };
}

/**
 * Listens on `hostname:port` (port 0: any free one). Resolves once bound;
 * rejects with the bind error (`EADDRINUSE` for `bindWithRetry`).
 */
export function listenTcp(
  hostname: string,
  port: number,
  onConnection: (socket: net.Socket) => void,
  log: Logger,
): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer({ noDelay: true }, onConnection);
    server.once("error", reject);
    server.listen({ host: hostname, port, ipv6Only: false }, () => {
      server.off("error", reject);
      // After the bind (too many open files on accept, ...): logged, the listener goes on.
      server.on("error", (error) => log.error("game port listener error", { error: String(error) }));
      resolve(server);
    });
  });
}
