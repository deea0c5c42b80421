/**
 * Routes formatted log lines to the terminal. Log lines normally go straight
 * to stdout; while the interactive console shows a prompt they are printed
 * above it, and while the terminal UI owns the screen they go to its log
 * pane instead of scribbling over it. Build the process's `LogHub` with
 * `sink: logSink.write` and hand the same sink to `startConsole`.
 *
 * @module
 */

import type { LogRecord } from "../util/log.ts";

/** Something that writes bytes synchronously (`Deno.stdout`). */
export interface SyncWriter {
  writeSync(p: Uint8Array): number;
}

const encoder = new TextEncoder();

/** Writes all of `text`; a closed output (no terminal any more) is ignored. */
export function writeAll(out: SyncWriter, text: string): void {
  let bytes = encoder.encode(text);
  try {
    while (bytes.length) bytes = bytes.subarray(out.writeSync(bytes));
  } catch {
    // Output gone (service manager closed it): nothing sensible to do.
  }
}

/** Colour unless `NO_COLOR` is set (https://no-color.org). */
export function colorWanted(): boolean {
  try {
    return Deno.env.get("NO_COLOR") === undefined;
  } catch {
    return true;
  }
}

/** Something that can be put in raw mode (`Deno.stdin`). */
export interface RawCapable {
  setRaw?(mode: boolean, options?: { cbreak: boolean }): void;
}

/**
 * Raw input with signals kept (cbreak), so Ctrl-C still reaches the
 * process's SIGINT handler; plain raw mode where cbreak is not supported
 * (Windows), where the console then hints at `exit` on Ctrl-C.
 */
export function enterRaw(stdin: RawCapable): void {
  try {
    stdin.setRaw!(true, { cbreak: true });
  } catch {
    stdin.setRaw!(true);
  }
}

/** A log sink a console front end can take over. */
export class ConsoleLogSink {
  readonly #out: SyncWriter;
  #owner: ((line: string, record: LogRecord) => void) | null = null;

  /** `out` defaults to stdout. */
  constructor(out: SyncWriter = Deno.stdout) {
    this.#out = out;
  }

  /** The `LogHub` sink function. */
  readonly write = (line: string, record: LogRecord): void => {
    if (this.#owner) this.#owner(line, record);
    else writeAll(this.#out, line + "\n");
  };

  /** Sends lines to `owner` until the returned function is called. */
  claim(owner: (line: string, record: LogRecord) => void): () => void {
    this.#owner = owner;
    return () => {
      if (this.#owner === owner) this.#owner = null;
    };
  }
}
