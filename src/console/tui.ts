/**
 * The terminal UI (`--tui`; issue 7): live panes for rooms, online users,
 * command output and recent log lines above an editable command line. The
 * screen is redrawn at most every {@link FRAME_MS} on server events and log
 * lines, and at once on key presses and terminal resizes. Plain ANSI escape
 * codes on the alternate screen; raw (cbreak) mode keeps Ctrl-C as SIGINT.
 *
 * @module
 */

import type { Subscription } from "../events/mod.ts";
import type { LogRecord } from "../util/log.ts";
import type { ConsoleHandle, ConsoleOptions, TerminalInput } from "./console.ts";
import { parseKeys } from "./keys.ts";
import { LineEditor } from "./line_editor.ts";
import { colorWanted, enterRaw, writeAll } from "./log_sink.ts";
import { renderScreen, type ScreenModel, type StyledLine } from "./screen.ts";
import { roomLine } from "./text.ts";
import { roomSummary } from "../ops/mod.ts";

/** Shortest time between two event-driven redraws. */
export const FRAME_MS = 100;
/** Lines kept in the output and log panes. */
const KEEP = 1000;

function styleOf(record: LogRecord): StyledLine["style"] {
  return record.level === "error" ? "error" : record.level === "warn" ? "warn" : undefined;
}

function push(buffer: StyledLine[], lines: readonly StyledLine[]): void {
  buffer.push(...lines);
  if (buffer.length > KEEP) buffer.splice(0, buffer.length - KEEP);
}

/** Starts the terminal UI on a terminal. */
export function startTui(o: ConsoleOptions & { readonly stdin: TerminalInput }): ConsoleHandle {
  const out = o.stdout ?? Deno.stdout;
  const size = o.size ?? (() => Deno.consoleSize());
  const color = o.color ?? colorWanted();
  const services = o.registry.services;
  const editor = new LineEditor();
  const output: StyledLine[] = [{ text: "type help for the commands; Tab completes, Up/Down recall", style: "dim" }];
  const logs: StyledLine[] = (o.logs?.history(200) ?? []).map((r) => ({ text: r.line, style: styleOf(r) }));
  let logScroll = 0;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastDraw = 0;
  let queue: Promise<void> = Promise.resolve();
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;

  const model = (): ScreenModel => {
    const core = services?.core;
    const rooms = core ? [...core.rooms.values()].map((r) => roomLine(roomSummary(r))) : ["(not available)"];
    const users = core
      ? core.onlineUsers().map((u) =>
        `${u.id} ${u.name}${u.roomId ? `  ${u.roomId}${u.monitor ? " (monitor)" : ""}` : ""}`
      )
      : ["(not available)"];
    const c = services?.counts();
    const title = ` Chorus ${services?.version ?? ""} \u2014 ${
      c ? `${c.users} players, ${c.rooms} rooms, ${c.sessions} sessions` : ""
    }${core?.switches.roomCreation === false ? " \u2014 room creation off" : ""}${
      core?.switches.connections === false ? " \u2014 connections off" : ""
    }`;
    const { columns } = size();
    return { title, rooms, users, output, logs, logScroll, prompt: editor.view("> ", columns) };
  };

  const draw = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = undefined;
    lastDraw = performance.now();
    const { columns, rows } = size();
    const screen = renderScreen(model(), columns, rows, color);
    const { row, column } = screen.cursor;
    writeAll(out, `\x1b[?25l\x1b[H${screen.lines.join("\r\n")}\x1b[${row + 1};${column + 1}H\x1b[?25h`);
  };
  /** Event-driven redraws: at most one per FRAME_MS. */
  const schedule = () => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(draw, Math.max(0, FRAME_MS - (performance.now() - lastDraw)));
  };

  const releaseSink = o.logSink?.claim((line, record) => {
    push(logs, [{ text: line, style: styleOf(record) }]);
    if (logScroll) logScroll++;
    schedule();
  });
  let events: Subscription | null = null;
  if (services) {
    events = services.core.ctx.bus.subscribe({ capacity: 16 });
    void (async () => {
      for await (const _ of events!) schedule();
    })();
  }
  const onResize = () => draw();
  try {
    Deno.addSignalListener("SIGWINCH", onResize);
  } catch {
    // No resize signal on this platform.
  }

  enterRaw(o.stdin);
  writeAll(out, "\x1b[?1049h\x1b[2J");
  draw();

  let rest = "";
  const onText = (text: string) => {
    const parsed = parseKeys(rest + text);
    rest = parsed.rest;
    for (const key of parsed.keys) {
      const action = editor.handle(key);
      if (action.t === "submit") {
        const line = action.line;
        if (!line.trim()) continue;
        push(output, [{ text: `> ${line}`, style: "dim" }]);
        queue = queue.then(async () => {
          const r = await o.registry.run(line, { kind: "console" });
          push(output, r.lines.map((text) => (r.ok ? { text } : { text, style: "error" as const })));
          draw();
        });
      } else if (action.t === "complete") {
        const shown = editor.complete(o.registry.complete(editor.text));
        if (shown.length) push(output, [{ text: shown.join("  "), style: "dim" }]);
      } else if (action.t === "page") {
        const step = Math.max(1, Math.floor(size().rows / 4));
        logScroll = Math.max(0, Math.min(logs.length - 1, logScroll - action.dir * step));
      } else if (action.t === "eof" || action.t === "interrupt") {
        push(output, [{ text: "(type exit to stop the server)", style: "dim" }]);
      }
    }
    draw();
  };

  const restore = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    events?.close();
    releaseSink?.();
    try {
      Deno.removeSignalListener("SIGWINCH", onResize);
    } catch {
      // Not added.
    }
    writeAll(out, "\x1b[?25h\x1b[?1049l");
    try {
      o.stdin.setRaw!(false);
    } catch {
      // Terminal gone.
    }
  };

  const done = (async () => {
    const r = o.stdin.readable.getReader();
    reader = r;
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await r.read();
        if (done) break;
        onText(decoder.decode(value, { stream: true }));
      }
    } catch {
      // Terminal gone: same as end of input.
    } finally {
      r.releaseLock();
    }
    await queue;
    if (!closed) o.log?.info("console input ended; the server keeps running");
    restore();
  })();

  return {
    mode: "tui",
    done,
    async close() {
      restore();
      await reader?.cancel().catch(() => {});
      await done;
    },
  };
}
