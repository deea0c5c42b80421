/**
 * Reading a child's text output line by line without trusting it: a line
 * that never ends is cut at a bound instead of being buffered without one.
 *
 * @module
 */

/** Calls `onLine` for each line of `stream` (UTF-8); a line longer than `maxChars` is passed on in pieces. */
export async function forEachLine(
  stream: ReadableStream<Uint8Array>,
  maxChars: number,
  onLine: (line: string) => void,
): Promise<void> {
  let carry = "";
  try {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      const lines = (carry + text).split("\n");
      carry = lines.pop() ?? "";
      for (const line of lines) onLine(line);
      if (carry.length > maxChars) {
        onLine(carry);
        carry = "";
      }
    }
  } catch {
    // The pipe closed with the process.
  }
  if (carry) onLine(carry);
}
