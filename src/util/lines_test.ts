import { deepEqual } from "node:assert/strict";
import { forEachLine } from "./lines.ts";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(chunks.map((c) => encoder.encode(c)));
}

Deno.test("forEachLine splits across chunks, keeps an unterminated last line, and cuts an endless one", async () => {
  const lines: string[] = [];
  await forEachLine(streamOf("a\nb", "c\n", "d"), 100, (l) => lines.push(l));
  deepEqual(lines, ["a", "bc", "d"]);
  const cut: string[] = [];
  await forEachLine(streamOf("x".repeat(6), "y".repeat(6), "\nz"), 10, (l) => cut.push(l));
  deepEqual(cut, ["x".repeat(6) + "y".repeat(6), "", "z"]);
});
