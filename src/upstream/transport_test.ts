import { deepEqual } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { readBody, withAttempt } from "./transport.ts";

const read = (res: Response, limit: number) =>
  withAttempt(new ManualClock(), 5000, undefined, (attempt) => readBody(attempt, res, limit));

/** A body streamed in chunks, with or without a `content-length`. */
function streamed(chunks: number[][], length?: number): Response {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(Uint8Array.from(chunk));
      c.close();
    },
  });
  return new Response(body, length === undefined ? {} : { headers: { "content-length": String(length) } });
}

Deno.test("readBody: a body of known length under the limit is read whole; others up to the limit", async () => {
  // Known length (the usual upstream answer): read in one go, into a buffer of its size.
  deepEqual(await read(streamed([[1, 2], [3]], 3), 10), { bytes: Uint8Array.of(1, 2, 3), complete: true });
  deepEqual(await read(new Response(""), 10), { bytes: new Uint8Array(0), complete: true });
  // Unknown length: streamed, and cut at the limit.
  deepEqual(await read(streamed([[1, 2], [3, 4]]), 10), { bytes: Uint8Array.of(1, 2, 3, 4), complete: true });
  deepEqual(await read(streamed([[1, 2], [3, 4], [5]]), 3), { bytes: Uint8Array.of(1, 2, 3), complete: false });
  // A declared length at or over the limit is streamed and cut too, never read whole.
  deepEqual(await read(streamed([[1, 2], [3, 4], [5]], 5), 3), { bytes: Uint8Array.of(1, 2, 3), complete: false });
});
