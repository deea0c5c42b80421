/**
 * A file sent at a bounded rate (tphira throttles replay downloads to
 * 50 KB/s per connection; `legacy.replay_download_bytes_per_sec`): chunks of
 * a quarter second's worth, each sent no earlier than the rate allows, timed
 * by the injected clock. Cancelling the response (the client went away)
 * closes the file.
 *
 * @module
 */

import type { Clock } from "../../src/util/clock.ts";

/** Bytes per chunk for a rate (a quarter second's worth, between 1 KiB and 64 KiB). */
export function chunkSize(bytesPerSec: number): number {
  if (bytesPerSec <= 0) return 64 * 1024;
  return Math.max(1024, Math.min(64 * 1024, Math.floor(bytesPerSec / 4)));
}

/** Milliseconds to wait before sending byte `sent` when `elapsedMs` passed since the start; 0 = now. */
export function delayBefore(sent: number, elapsedMs: number, bytesPerSec: number): number {
  if (bytesPerSec <= 0) return 0;
  return Math.max(0, Math.ceil((sent / bytesPerSec) * 1000 - elapsedMs));
}

/** Streams `file` (closing it at the end or on cancel) at `bytesPerSec` (0 = as fast as possible). */
export function throttledStream(
  file: Deno.FsFile,
  bytesPerSec: number,
  clock: Clock,
  onDone: () => void = () => {},
): ReadableStream<Uint8Array> {
  const size = chunkSize(bytesPerSec);
  const start = clock.monotonic();
  let sent = 0;
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    try {
      file.close();
    } catch {
      // already closed
    }
    onDone();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const wait = delayBefore(sent, clock.monotonic() - start, bytesPerSec);
      if (wait > 0) await new Promise<void>((resolve) => clock.setTimeout(resolve, wait));
      if (closed) return;
      const buffer = new Uint8Array(size);
      const n = await file.read(buffer);
      if (n === null) {
        finish();
        controller.close();
        return;
      }
      sent += n;
      controller.enqueue(buffer.subarray(0, n));
    },
    cancel() {
      finish();
    },
  }, { highWaterMark: 0 });
}
