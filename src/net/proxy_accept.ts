/**
 * Reading an optional PROXY protocol header at the start of a connection
 * from a trusted proxy (spec 3 §4.1). Bytes that turn out not to be a header
 * are handed back, so direct clients lose nothing: the returned transport
 * replays them before reading on.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import { parseProxyHeader } from "./proxy_protocol.ts";

/** The byte transport of a connection. */
export interface Conn {
  read(p: Uint8Array): Promise<number | null>;
  write(p: Uint8Array): Promise<number>;
  close(): void;
}

/** A transport that first returns `prefix`, then reads from `inner`. */
export class PrefixedConn implements Conn {
  #prefix: Uint8Array;
  readonly #inner: Conn;
  constructor(prefix: Uint8Array, inner: Conn) {
    this.#prefix = prefix;
    this.#inner = inner;
  }
  read(p: Uint8Array): Promise<number | null> {
    if (this.#prefix.length === 0) return this.#inner.read(p);
    const n = Math.min(p.length, this.#prefix.length);
    p.set(this.#prefix.subarray(0, n));
    this.#prefix = this.#prefix.subarray(n);
    return Promise.resolve(n);
  }
  write(p: Uint8Array): Promise<number> {
    return this.#inner.write(p);
  }
  close(): void {
    this.#inner.close();
  }
}

/** Outcome of {@link readProxyHeader}. */
export type ProxyAccept =
  | { readonly ok: true; readonly conn: Conn; readonly ip: string | null }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads until a PROXY header is recognised or ruled out, within `timeoutMs`
 * of the injected clock. `ip` is the client address from the header (null
 * for `LOCAL`/`UNKNOWN` or when there was no header).
 */
export async function readProxyHeader(conn: Conn, clock: Clock, timeoutMs: number): Promise<ProxyAccept> {
  let buffered = new Uint8Array(0);
  const chunk = new Uint8Array(512);
  let timer: TimerHandle | undefined;
  const timeout = new Promise<null>((resolve) => (timer = clock.setTimeout(() => resolve(null), timeoutMs)));
  try {
    for (;;) {
      const n = await Promise.race([conn.read(chunk), timeout.then(() => -1)]);
      if (n === -1) return { ok: false, reason: "PROXY header timed out" };
      if (n === null) return { ok: false, reason: "connection closed before any data" };
      const next = new Uint8Array(buffered.length + n);
      next.set(buffered);
      next.set(chunk.subarray(0, n), buffered.length);
      buffered = next;
      const parsed = parseProxyHeader(buffered);
      if (parsed.kind === "need-more") continue;
      if (parsed.kind === "invalid") return { ok: false, reason: parsed.reason };
      if (parsed.kind === "none") return { ok: true, conn: new PrefixedConn(buffered, conn), ip: null };
      return {
        ok: true,
        conn: new PrefixedConn(buffered.subarray(parsed.length), conn),
        ip: parsed.source?.ip ?? null,
      };
    }
  } finally {
    clock.clearTimeout(timer);
  }
}
