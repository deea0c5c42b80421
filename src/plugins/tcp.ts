/**
 * `phira-tcp` (spec 3 §4.6; capability `tcp`): a plugin's outbound
 * connections and listeners, with bounded buffers. Connecting follows the
 * same address policy as outbound HTTP (the name is resolved and every
 * address checked, and the connection goes to a checked address). Received
 * bytes wait in a buffer of at most {@link RECV_BUFFER_BYTES} (reading from
 * the socket pauses while it is full); each byte reaches the plugin once:
 * through `recv`, or through an `on-api("tcp:data", [handle, base64])`
 * notification queued behind its events, which takes what is buffered when
 * it is delivered. Accepted connections likewise wait (at most
 * {@link ACCEPT_BACKLOG}) for `accept` or `on-api("tcp:accept", [listener,
 * handle])`. `on-api("tcp:closed", [handle])` says the peer closed. Sends
 * are queued (at most {@link SEND_BUFFER_BYTES} unsent) so a host call never
 * waits for the network.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { AddressPolicy } from "./address_policy.ts";
import { resolveHost, splitAddress } from "./tcp_address.ts";

/** Bytes buffered per connection before reading pauses. */
export const RECV_BUFFER_BYTES = 1024 * 1024;
/** Unsent bytes per connection before `send` is refused. */
export const SEND_BUFFER_BYTES = 1024 * 1024;
/** Connections waiting to be accepted per listener. */
export const ACCEPT_BACKLOG = 64;
/** Open connections and listeners per plugin. */
export const MAX_HANDLES = 64;
/** Largest `tcp:data` notification. */
const NOTIFY_BYTES = 64 * 1024;

/** Queues an `on-api` notification to the plugin; `take` runs when it is delivered and gives its arguments (null skips it). */
export type TcpNotify = (method: string, take: () => unknown[] | null) => void;

interface Connection {
  readonly kind: "conn";
  readonly conn: Deno.TcpConn;
  readonly peer: string;
  chunks: Uint8Array[];
  buffered: number;
  unsent: number;
  closed: boolean;
  notified: boolean;
  resume: (() => void) | null;
  writing: Promise<void>;
}

interface Listener {
  readonly kind: "listener";
  readonly listener: Deno.TcpListener;
  readonly waiting: bigint[];
  notified: number;
}

/** One plugin's sockets. */
export class PluginTcp {
  readonly #policy: AddressPolicy;
  readonly #notify: TcpNotify;
  readonly #resolve: (host: string) => Promise<string[]>;
  readonly #handles = new Map<bigint, Connection | Listener>();
  #next = 1n;

  /** `resolve` looks up a host name's addresses (injected for tests; default DNS). */
  constructor(policy: AddressPolicy, notify: TcpNotify, resolve: (host: string) => Promise<string[]> = resolveHost) {
    this.#policy = policy;
    this.#notify = notify;
    this.#resolve = resolve;
  }

  /** Open handles. */
  get size(): number {
    return this.#handles.size;
  }

  /** Opens a connection to a checked address of `addr`. */
  async connect(addr: string): Promise<bigint> {
    this.#room();
    const { host, port } = splitAddress(addr);
    const nameProblem = this.#policy.refusesName(host);
    if (nameProblem) throw new Error(`refused: ${nameProblem}`);
    const addresses = /^[\d.]+$|:/.test(host) ? [host] : await this.#resolve(host);
    if (!addresses.length) throw new Error(`${host} has no address`);
    for (const a of addresses) {
      const problem = this.#policy.refusesAddress(a);
      if (problem) throw new Error(`refused: ${problem}`);
    }
    const conn = await Deno.connect({ hostname: addresses[0]!, port });
    const remote = conn.remoteAddr as Deno.NetAddr;
    const problem = this.#policy.refusesAddress(remote.hostname);
    if (problem) {
      conn.close();
      throw new Error(`refused: connected to ${problem}`);
    }
    return this.#adopt(conn);
  }

  /** Listens on `addr`. */
  listen(addr: string): bigint {
    this.#room();
    const { host, port } = splitAddress(addr);
    const listener = Deno.listen({ hostname: host, port });
    const handle = this.#next++;
    const entry: Listener = { kind: "listener", listener, waiting: [], notified: 0 };
    this.#handles.set(handle, entry);
    void this.#acceptLoop(handle, entry);
    return handle;
  }

  /** The local port of a listener (tests and `peer-addr` of listeners). */
  localAddr(handle: bigint): string {
    const h = this.#get(handle);
    const addr = (h.kind === "listener" ? h.listener.addr : h.conn.localAddr) as Deno.NetAddr;
    return `${addr.hostname}:${addr.port}`;
  }

  /** Queues bytes to send. */
  send(handle: bigint, bytes: Uint8Array): void {
    const c = this.#conn(handle);
    if (c.closed) throw new Error("the connection is closed");
    if (c.unsent + bytes.length > SEND_BUFFER_BYTES) {
      throw new Error(`more than ${SEND_BUFFER_BYTES} bytes wait to be sent`);
    }
    c.unsent += bytes.length;
    const copy = bytes.slice();
    c.writing = c.writing.then(async () => {
      let at = 0;
      try {
        while (at < copy.length) at += await c.conn.write(copy.subarray(at));
      } catch {
        c.closed = true;
      } finally {
        c.unsent -= copy.length;
      }
    });
  }

  /** A waiting accepted connection, or null. */
  accept(handle: bigint): bigint | null {
    const h = this.#get(handle);
    if (h.kind !== "listener") throw new Error("not a listener");
    return h.waiting.shift() ?? null;
  }

  /** Up to `max` buffered bytes, or null when none; throws once the peer closed and nothing is left. */
  recv(handle: bigint, max: number): Uint8Array | null {
    const c = this.#conn(handle);
    if (c.buffered === 0) {
      if (c.closed) throw new Error("the connection is closed");
      return null;
    }
    return this.#take(c, Math.max(1, max));
  }

  /** `ip:port` of the peer. */
  peerAddr(handle: bigint): string {
    const h = this.#get(handle);
    if (h.kind === "listener") return this.localAddr(handle);
    return h.peer;
  }

  /** Closes a handle. */
  close(handle: bigint): void {
    const h = this.#get(handle);
    this.#handles.delete(handle);
    try {
      if (h.kind === "listener") h.listener.close();
      else {
        h.closed = true;
        h.resume?.();
        h.conn.close();
      }
    } catch {
      // Already closed.
    }
  }

  /** Closes everything (the plugin stops). */
  closeAll(): void {
    for (const handle of [...this.#handles.keys()]) this.close(handle);
  }

  #room(): void {
    if (this.#handles.size >= MAX_HANDLES) throw new Error(`at most ${MAX_HANDLES} connections and listeners`);
  }

  #get(handle: bigint): Connection | Listener {
    const h = this.#handles.get(BigInt(handle));
    if (!h) throw new Error(`unknown handle ${handle}`);
    return h;
  }

  #conn(handle: bigint): Connection {
    const h = this.#get(handle);
    if (h.kind !== "conn") throw new Error("not a connection");
    return h;
  }

  #adopt(conn: Deno.TcpConn): bigint {
    const remote = conn.remoteAddr as Deno.NetAddr;
    const handle = this.#next++;
    const peer = remote.hostname.includes(":")
      ? `[${remote.hostname}]:${remote.port}`
      : `${remote.hostname}:${remote.port}`;
    const c: Connection = {
      kind: "conn",
      conn,
      peer,
      chunks: [],
      buffered: 0,
      unsent: 0,
      closed: false,
      notified: false,
      resume: null,
      writing: Promise.resolve(),
    };
    this.#handles.set(handle, c);
    void this.#readLoop(handle, c);
    return handle;
  }

  #take(c: Connection, max: number): Uint8Array {
    const n = Math.min(max, c.buffered);
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = c.chunks[0]!;
      const part = Math.min(head.length, n - at);
      out.set(head.subarray(0, part), at);
      at += part;
      if (part === head.length) c.chunks.shift();
      else c.chunks[0] = head.subarray(part);
    }
    c.buffered -= n;
    c.resume?.();
    return out;
  }

  async #readLoop(handle: bigint, c: Connection): Promise<void> {
    const buffer = new Uint8Array(16 * 1024);
    try {
      while (!c.closed) {
        if (c.buffered >= RECV_BUFFER_BYTES) {
          await new Promise<void>((resolve) => (c.resume = resolve));
          c.resume = null;
          continue;
        }
        const n = await c.conn.read(buffer);
        if (n === null) break;
        c.chunks.push(buffer.slice(0, n));
        c.buffered += n;
        this.#announce(handle, c);
      }
    } catch {
      // Reset by the peer or closed by the plugin.
    }
    const wasOpen = this.#handles.get(handle) === c;
    c.closed = true;
    if (wasOpen) this.#notify("tcp:closed", () => [handle.toString()]);
  }

  #announce(handle: bigint, c: Connection): void {
    if (c.notified) return;
    c.notified = true;
    this.#notify("tcp:data", () => {
      c.notified = false;
      if (c.buffered === 0) return null;
      const data = this.#take(c, NOTIFY_BYTES);
      if (c.buffered > 0) this.#announce(handle, c);
      return [handle.toString(), Buffer.from(data).toString("base64")];
    });
  }

  async #acceptLoop(handle: bigint, l: Listener): Promise<void> {
    try {
      for await (const conn of l.listener) {
        if (l.waiting.length >= ACCEPT_BACKLOG || this.#handles.size >= MAX_HANDLES) {
          conn.close();
          continue;
        }
        l.waiting.push(this.#adopt(conn));
        this.#notify("tcp:accept", () => {
          const next = l.waiting.shift();
          return next === undefined ? null : [handle.toString(), String(next)];
        });
      }
    } catch {
      // Closed.
    }
  }
}
