/**
 * A minimal Server-Sent Events reader over `fetch` (spec 1 §6 framing:
 * `event:` and `data:` lines, a blank line ends an event, `:` starts a
 * comment), for the SSE fan-out measurement.
 *
 * @module
 */

/** One received event. */
export interface SseMessage {
  readonly event: string;
  readonly data: string;
}

/** Splits SSE text into events; feed chunks in order. */
export class SseParser {
  #buffer = "";
  #event = "message";
  #data: string[] = [];

  /** Parses a chunk and returns the events it completed. */
  push(chunk: string): SseMessage[] {
    const out: SseMessage[] = [];
    this.#buffer += chunk;
    let nl: number;
    while ((nl = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, nl).replace(/\r$/, "");
      this.#buffer = this.#buffer.slice(nl + 1);
      if (line === "") {
        if (this.#data.length) out.push({ event: this.#event, data: this.#data.join("\n") });
        this.#event = "message";
        this.#data = [];
      } else if (line.startsWith(":")) {
        continue;
      } else {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") this.#event = value;
        else if (field === "data") this.#data.push(value);
      }
    }
    return out;
  }
}

/**
 * Reads the event stream at `url` until `signal` aborts or the server ends
 * it, calling `onMessage` for each event. Rejects on HTTP errors.
 */
export async function readSse(url: string, signal: AbortSignal, onMessage: (m: SseMessage) => void): Promise<void> {
  const res = await fetch(url, { signal, headers: { accept: "text/event-stream" } });
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new Error(`Cannot subscribe to ${url}: HTTP ${res.status}`);
  }
  const parser = new SseParser();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  // Aborting the fetch does not always wake a pending read of a piped body: cancel the reader too.
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const m of parser.push(value)) onMessage(m);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    signal.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}
