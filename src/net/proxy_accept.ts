/**
 * Reading an optional PROXY protocol header at the start of a connection
 * from a trusted proxy (spec 3 §4.1). Bytes that turn out not to be a header
 * are handed back (`rest`), so direct clients lose nothing: the session
 * splits them before anything read later.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import { parseProxyHeader } from "./proxy_protocol.ts";

/** The events of a connection that pushes its bytes (a `node:net` socket fits). */
export interface ByteStream {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end" | "error" | "close", listener: () => void): unknown;
  off(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  off(event: "end" | "error" | "close", listener: () => void): unknown;
  /** Stops delivering data (the caller resumes once the next reader listens). */
  pause(): unknown;
}

/** Outcome of {@link readProxyHeader}. */
export type ProxyAccept =
  | { readonly ok: true; readonly ip: string | null; readonly rest: Uint8Array }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads until a PROXY header is recognised or ruled out, within `timeoutMs`
 * of the injected clock, and leaves the stream paused. `ip` is the client
 * address from the header (null for `LOCAL`/`UNKNOWN` or when there was no
 * header); `rest` holds the bytes read after the header.
 */
export function readProxyHeader(stream: ByteStream, clock: Clock, timeoutMs: number): Promise<ProxyAccept> {
  return new Promise((resolve) => {
    let buffered = new Uint8Array(0);
    let timer: TimerHandle | undefined = undefined;
    const finish = (result: ProxyAccept) => {
      clock.clearTimeout(timer);
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onEnd);
      stream.off("close", onEnd);
      stream.pause();
      resolve(result);
    };
    const onEnd = () => finish({ ok: false, reason: "connection closed before any data" });
    const onData = (chunk: Uint8Array) => {
      const next = new Uint8Array(buffered.length + chunk.length);
      next.set(buffered);
      next.set(chunk, buffered.length);
      buffered = next;
      // Bounded: a v1 header is at most 107 bytes and a v2 one announces its length in its first 16.
      const parsed = parseProxyHeader(buffered);
      if (parsed.kind === "need-more") return;
      if (parsed.kind === "invalid") return finish({ ok: false, reason: parsed.reason });
      if (parsed.kind === "none") return finish({ ok: true, ip: null, rest: buffered });
      finish({ ok: true, ip: parsed.source?.ip ?? null, rest: buffered.subarray(parsed.length) });
    };
    timer = clock.setTimeout(() => finish({ ok: false, reason: "PROXY header timed out" }), timeoutMs);
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onEnd);
    stream.on("close", onEnd);
  });
}
