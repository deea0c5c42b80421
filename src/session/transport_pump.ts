/**
 * Pull-style reading (a transport with `read`, as `Deno.Conn` has: test
 * doubles and in-process pipes) pumped into a session's push entry point.
 * Sockets push by themselves (`src/server/socket_link.ts`); this loop exists
 * so the session stays testable without sockets.
 *
 * @module
 */

import type { Transport } from "./session_types.ts";

/** Bytes per read call. */
const READ_BUFFER_BYTES = 16 * 1024;

/** What the pump feeds. */
export interface ByteTarget {
  readonly open: boolean;
  data(chunk: Uint8Array): void;
  end(error?: unknown): void;
  /** Resolves when reading may go on (null: at once). */
  readable(): Promise<void> | null;
}

/** Reads `transport` into `target` until EOF, an error or the target closing. */
export async function pumpTransport(transport: Transport, target: ByteTarget): Promise<void> {
  const buf = new Uint8Array(READ_BUFFER_BYTES);
  try {
    while (target.open) {
      const wait = target.readable();
      if (wait) {
        await wait;
        continue;
      }
      const n = await transport.read(buf);
      if (n === null) return target.end();
      // A copy: the target may keep part of a chunk while its mailbox is full.
      if (n > 0) target.data(buf.slice(0, n));
    }
  } catch (error) {
    target.end(error);
  }
}
