import { deepEqual, equal, ok } from "node:assert/strict";
import { LogHub } from "../util/log.ts";
import { outcomeText, startConsole, type TerminalInput } from "./console.ts";
import { ConsoleLogSink, type SyncWriter } from "./log_sink.ts";
import { type CommandOutcome, CommandRegistry } from "./registry.ts";

/** A scripted terminal: push text, end input, read what was written (ANSI stripped). */
function terminal(isTerminal: boolean) {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const raw: boolean[] = [];
  const written: string[] = [];
  const stdin: TerminalInput = {
    readable: new ReadableStream({ start: (c) => void (controller = c) }),
    isTerminal: () => isTerminal,
    setRaw: (mode) => void raw.push(mode),
  };
  const stdout: SyncWriter = {
    writeSync(p) {
      written.push(new TextDecoder().decode(p));
      return p.length;
    },
  };
  return {
    stdin,
    stdout,
    raw,
    push: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    text: () => written.join(""),
    /** What a terminal would show: `\r`, erase-line and cursor-right applied, lines joined with `\n`. */
    plain: () => emulate(written.join("")),
  };
}

/** A tiny line-oriented terminal: enough for the interactive console's output. */
function emulate(text: string): string {
  const lines: string[] = [];
  let line: string[] = [];
  let col = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\x1b") {
      const m = /^\[(\d*)([A-Za-z])/.exec(text.slice(i + 1))!;
      if (m[2] === "K") line = [];
      if (m[2] === "C") col += Number(m[1] || 1);
      i += m[0].length;
    } else if (ch === "\r") col = 0;
    else if (ch === "\n") {
      lines.push(line.join("").trimEnd());
      line = [];
      col = 0;
    } else {
      while (line.length < col) line.push(" ");
      line[col++] = ch;
    }
  }
  return [...lines, line.join("").trimEnd()].join("\n");
}

function registry(): CommandRegistry {
  const r = new CommandRegistry({ now: () => 0 });
  r.register({ name: "rooms", help: "rooms", run: () => ["no rooms"] });
  r.register({ name: "room info", help: "info", run: () => ["info"] });
  r.register({ name: "echo", args: [{ name: "text", kind: "text" }], help: "echo", run: (a) => [a.str("text")] });
  return r;
}

/** Lets queued reads and command runs finish. */
async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
}

Deno.test("console line mode runs one command per line; end of input stops the console, not the server", async () => {
  const t = terminal(false);
  const logs = new LogHub({ sink: () => {} });
  const c = startConsole({ registry: registry(), stdin: t.stdin, stdout: t.stdout, log: logs.logger(), tui: true });
  equal(c.mode, "line");
  t.push("rooms\necho hello  there\r\n\nfrob");
  t.push("nicate\n");
  t.push("echo last line without newline");
  t.end();
  await c.done;
  deepEqual(t.text().split("\n"), [
    "no rooms",
    "hello there",
    'error: unknown command "frobnicate"; type help for the list',
    "last line without newline",
    "",
  ]);
  deepEqual(t.raw, [], "a pipe is never put in raw mode");
  deepEqual(logs.history().map((r) => r.msg), [
    "the terminal UI needs a terminal; reading commands line by line",
    "console input ended; the server keeps running",
  ]);
  await c.close();
});

Deno.test("console line mode close() stops reading", async () => {
  const t = terminal(false);
  const c = startConsole({ registry: registry(), stdin: t.stdin, stdout: t.stdout });
  t.push("rooms\n");
  await flush();
  await c.close();
  equal(t.text(), "no rooms\n");
});

Deno.test("interactive console: raw mode, editing, history, completion, logs above the prompt", async () => {
  const t = terminal(true);
  const sink = new ConsoleLogSink(t.stdout);
  const hub = new LogHub({ sink: sink.write });
  const c = startConsole({
    registry: registry(),
    stdin: t.stdin,
    stdout: t.stdout,
    logSink: sink,
    color: false,
    size: () => ({ columns: 80, rows: 24 }),
  });
  equal(c.mode, "interactive");
  deepEqual(t.raw, [true]);
  t.push("echo helo\x1b[D\x1b[Dl\r");
  await flush();
  ok(t.plain().includes("> echo hello\nhello\n"), t.plain());
  t.push("\x1b[A\r");
  await flush();
  ok(t.plain().includes("> echo hello\nhello\n> echo hello\nhello\n"), "the recalled line ran again");
  t.push("ro\t");
  await flush();
  ok(t.plain().includes("room  rooms\n"), "ambiguous completion lists the candidates");
  t.push("s\r");
  await flush();
  ok(t.plain().includes("> rooms\nno rooms\n"));
  hub.logger().info("a log line");
  ok(t.plain().endsWith("a log line\n>"), "the prompt is drawn again below a log line");
  t.push("\x04");
  await flush();
  ok(t.plain().includes("(type exit to stop the server)"));
  t.end();
  await c.done;
  deepEqual(t.raw, [true, false], "the terminal is restored at end of input");
  const before = t.text().length;
  hub.logger().info("after the console");
  ok(t.text().slice(before).startsWith("20"), "log lines go straight to the output again");
  await c.close();
});

Deno.test("console output escapes control characters in lines (names chosen by users)", () => {
  const text = outcomeText({ ok: true, lines: ["p1  evil\x1b]0;pwned\x07  x\x9b2J", "next"] }, true);
  equal(text, "p1  evil\\x1b]0;pwned\\x07  x\\x9b2J\nnext\n");
  // Errors keep their colour, which is added after escaping.
  const failed: CommandOutcome = {
    ok: false,
    code: "ROOM_NOT_FOUND",
    message: "no room",
    lines: ["error: no room \x1b[2J"],
  };
  equal(outcomeText(failed, true), "\x1b[31merror: no room \\x1b[2J\x1b[0m\n");
});
