/**
 * The read side of a connection (protocol.md §1): the version byte, then
 * length-prefixed frames, with backpressure — reading pauses while the
 * session's mailbox is full.
 *
 * @module
 */

import { FrameDecoder, PROTOCOL_VERSION, ProtocolError } from "../protocol/mod.ts";
import type { Transport } from "./session_types.ts";

/** Bytes read per socket read call. */
const READ_BUFFER_BYTES = 1024;

/** Why reading stopped. */
export type ReadEnd =
  | { readonly why: "eof" | "stopped" }
  | { readonly why: "bad-version"; readonly version: number | undefined }
  | { readonly why: "malformed"; readonly error: ProtocolError }
  | { readonly why: "read-error"; readonly error: unknown };

/** What the reader asks of its session. */
export interface FrameSink {
  /** False once the session closed: reading stops. */
  open(): boolean;
  /** Resolves when the mailbox has room (at once when it has). */
  room(): Promise<void> | null;
  /** One frame's payload, decoded in order. May throw `ProtocolError`. */
  frame(payload: Uint8Array): void;
}

/** Reads `transport` until EOF, an error or the sink closing. */
export async function readFrames(transport: Transport, sink: FrameSink): Promise<ReadEnd> {
  // Small per-connection buffers: most frames are tens of bytes, and the
  // memory target is thousands of idle sessions (issue 8). Large frames
  // simply take more reads; the decoder grows only when one needs it.
  const buf = new Uint8Array(READ_BUFFER_BYTES);
  const decoder = new FrameDecoder(256);
  let versionSeen = false;
  try {
    while (sink.open()) {
      const wait = sink.room();
      if (wait) {
        await wait;
        if (!sink.open()) break;
      }
      const n = await transport.read(buf);
      if (n === null) return { why: "eof" };
      let chunk = buf.subarray(0, n);
      if (!versionSeen) {
        versionSeen = true;
        // Every official client sends 1 (protocol.md §1); anything else is not a Phira client we can talk to.
        if (chunk[0] !== PROTOCOL_VERSION) return { why: "bad-version", version: chunk[0] };
        chunk = chunk.subarray(1);
      }
      decoder.push(chunk);
      for (let payload = decoder.next(); payload; payload = decoder.next()) {
        sink.frame(payload);
        if (!sink.open()) break;
      }
    }
    return { why: "stopped" };
  } catch (error) {
    if (error instanceof ProtocolError) return { why: "malformed", error };
    return { why: "read-error", error };
  }
}
