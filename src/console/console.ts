/**
 * The console on the server's terminal (spec 3 §4.2; issue 7 "Front ends").
 * Three modes, chosen from the terminal:
 *
 * - **line** (stdin is not a terminal: a pipe, a file, a service manager):
 *   one command per line; at end of input the console stops and the server
 *   keeps running;
 * - **interactive** (a terminal): raw-mode line editing with history and Tab
 *   completion; log lines appear above the prompt;
 * - **tui** (`--tui` on a terminal): the terminal UI of `tui.ts`.
 *
 * Ctrl-C keeps its usual meaning (the terminal stays in cbreak mode, so the
 * process's SIGINT handler stops the server gracefully); `exit`/`quit` go
 * through the registry's shutdown callback.
 *
 * @module
 */

import { escapeControlChars } from "../util/control_chars.ts";
import type { Logger, LogHub } from "../util/log.ts";
import { parseKeys } from "./keys.ts";
import { LineEditor } from "./line_editor.ts";
import { colorWanted, type ConsoleLogSink, enterRaw, type SyncWriter, writeAll } from "./log_sink.ts";
import type { CommandOutcome, CommandRegistry } from "./registry.ts";
import type { OpsServices } from "../ops/mod.ts";
import { startTui } from "./tui.ts";

/** The terminal input (`Deno.stdin`). */
export interface TerminalInput {
  readonly readable: ReadableStream<Uint8Array>;
  isTerminal(): boolean;
  setRaw?(mode: boolean, options?: { cbreak: boolean }): void;
}

/** Options of {@link startConsole}. */
export interface ConsoleOptions {
  /** The command registry (a `ConsoleRegistry` gives the terminal UI its panes). */
  readonly registry: CommandRegistry & { readonly services?: OpsServices };
  /** Default `Deno.stdin`. */
  readonly stdin?: TerminalInput;
  /** Default `Deno.stdout`. */
  readonly stdout?: SyncWriter;
  /** Start the terminal UI when stdin is a terminal. */
  readonly tui?: boolean;
  /** Log history for the terminal UI's log pane. */
  readonly logs?: LogHub;
  /** The process's log sink, taken over while a prompt or the terminal UI is shown. */
  readonly logSink?: ConsoleLogSink;
  /** Where the console notes its own events (input ended, ...). */
  readonly log?: Logger;
  /** Terminal size (default `Deno.consoleSize()`). */
  readonly size?: () => { columns: number; rows: number };
  /** Colour output (default: on a terminal unless `NO_COLOR` is set). */
  readonly color?: boolean;
}

/** A running console. */
export interface ConsoleHandle {
  readonly mode: "line" | "interactive" | "tui";
  /** Resolves when input ended or {@link close} was called. Not a reason to stop the server. */
  readonly done: Promise<void>;
  /** Stops reading and restores the terminal. */
  close(): Promise<void>;
}

const RED = "\x1b[31m";
const RESET = "\x1b[0m";

/**
 * Prints an outcome's lines, errors in red when colour is on. Lines carry
 * names chosen by users (players, OpenUDS `client_name`): control characters
 * are shown escaped so they cannot drive the operator's terminal.
 */
export function outcomeText(outcome: CommandOutcome, color: boolean, eol = "\n"): string {
  if (!outcome.lines.length) return "";
  const paint = (l: string) => (!outcome.ok && color && l.startsWith("error:") ? `${RED}${l}${RESET}` : l);
  return outcome.lines.map((l) => paint(escapeControlChars(l))).join(eol) + eol;
}

/** Starts the console in the mode the terminal allows. */
export function startConsole(o: ConsoleOptions): ConsoleHandle {
  const stdin = o.stdin ?? Deno.stdin;
  const terminal = stdin.isTerminal() && stdin.setRaw !== undefined;
  if (o.tui && !terminal) o.log?.warn("the terminal UI needs a terminal; reading commands line by line");
  if (o.tui && terminal) return startTui({ ...o, stdin });
  if (terminal) return startInteractive(o, stdin);
  return startLineMode(o, stdin);
}

/** Reads decoded text chunks until end of input or cancel. */
async function readText(
  stdin: TerminalInput,
  onReader: (r: ReadableStreamDefaultReader<Uint8Array>) => void,
  onText: (text: string) => Promise<void> | void,
): Promise<void> {
  const reader = stdin.readable.getReader();
  onReader(reader);
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await onText(decoder.decode(value, { stream: true }));
    }
    const tail = decoder.decode();
    if (tail) await onText(tail);
  } catch {
    // Input closed under us (terminal gone): same as end of input.
  } finally {
    reader.releaseLock();
  }
}

/** Line mode: pipes, files, service managers. End of input never stops the server. */
function startLineMode(o: ConsoleOptions, stdin: TerminalInput): ConsoleHandle {
  const out = o.stdout ?? Deno.stdout;
  const color = o.color ?? false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let closed = false;
  let pending = "";
  const runLines = async (text: string) => {
    pending += text;
    let nl: number;
    while ((nl = pending.indexOf("\n")) !== -1) {
      const line = pending.slice(0, nl).replace(/\r$/, "");
      pending = pending.slice(nl + 1);
      if (line.trim()) writeAll(out, outcomeText(await o.registry.run(line, { kind: "console" }), color));
    }
  };
  const done = readText(stdin, (r) => (reader = r), runLines).then(async () => {
    if (pending.trim()) writeAll(out, outcomeText(await o.registry.run(pending, { kind: "console" }), color));
    if (!closed) o.log?.info("console input ended; the server keeps running");
  });
  return {
    mode: "line",
    done,
    async close() {
      closed = true;
      await reader?.cancel().catch(() => {});
      await done;
    },
  };
}

/** Interactive mode: raw terminal, editable prompt, log lines above it. */
function startInteractive(o: ConsoleOptions, stdin: TerminalInput): ConsoleHandle {
  const out = o.stdout ?? Deno.stdout;
  const color = o.color ?? colorWanted();
  const size = o.size ?? (() => Deno.consoleSize());
  const prompt = "> ";
  const editor = new LineEditor();
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let closed = false;
  let queue: Promise<void> = Promise.resolve();

  const promptText = () => {
    const { text, column } = editor.view(prompt, Math.max(10, size().columns));
    return `\r\x1b[2K${text}\r${column ? `\x1b[${column}C` : ""}`;
  };
  const above = (text: string) => {
    if (!closed) writeAll(out, `\r\x1b[2K${text.replace(/\r?\n/g, "\r\n")}${promptText()}`);
  };
  const release = o.logSink?.claim((line) => above(line + "\n"));
  enterRaw(stdin);
  writeAll(out, promptText());

  let rest = "";
  const onText = (text: string) => {
    const parsed = parseKeys(rest + text);
    rest = parsed.rest;
    for (const key of parsed.keys) {
      const action = editor.handle(key);
      switch (action.t) {
        case "submit": {
          above(`${prompt}${action.line}\n`);
          const line = action.line;
          if (!line.trim()) break;
          queue = queue.then(async () => above(outcomeText(await o.registry.run(line, { kind: "console" }), color)));
          break;
        }
        case "complete": {
          const shown = editor.complete(o.registry.complete(editor.text));
          if (shown.length) above(shown.join("  ") + "\n");
          else writeAll(out, promptText());
          break;
        }
        case "eof":
        case "interrupt":
          above("(type exit to stop the server)\n");
          break;
        default:
          writeAll(out, promptText());
      }
    }
  };
  const restore = () => {
    release?.();
    try {
      stdin.setRaw!(false);
    } catch {
      // Terminal gone.
    }
  };
  const done = readText(stdin, (r) => (reader = r), onText).then(async () => {
    await queue;
    if (!closed) {
      writeAll(out, "\r\x1b[2K");
      o.log?.info("console input ended; the server keeps running");
    }
    closed = true;
    restore();
  });
  return {
    mode: "interactive",
    done,
    async close() {
      if (!closed) writeAll(out, "\r\x1b[2K");
      closed = true;
      restore();
      await reader?.cancel().catch(() => {});
      await done;
    },
  };
}
