/**
 * Structured logging. One {@link LogHub} per process (built in `main.ts`)
 * formats records, writes them to a sink (stdout by default), keeps a bounded
 * history for the console and local-socket API, and fans records out to
 * listeners. Log calls carry `user`, `room`, `session` and `round` fields so
 * every front end shares one vocabulary (style-models §15).
 *
 * @module
 */

import { escapeControlChars, escapeJsonControls, hasControlChars } from "./control_chars.ts";

/** Severity, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Fields attached to a log record. */
export type LogFields = {
  user?: number | undefined;
  room?: string | undefined;
  session?: number | string | undefined;
  round?: string | undefined;
  [key: string]: unknown;
};

/** One emitted log record. */
export interface LogRecord {
  readonly seq: number;
  readonly time: number;
  readonly level: LogLevel;
  readonly msg: string;
  readonly fields: LogFields;
  /** The formatted line as written to the sink. */
  readonly line: string;
}

/** Logging facade handed to every component. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose records carry `fields` in addition to their own. */
  child(fields: LogFields): Logger;
}

/** Options of {@link LogHub}. */
export interface LogHubOptions {
  /** Minimum level written and kept (default `info`). */
  level?: LogLevel;
  /** `text` (logfmt-like, default) or `json` lines. */
  format?: "text" | "json";
  /** Where formatted lines go (default: stdout). */
  sink?: (line: string, record: LogRecord) => void;
  /** Records kept for {@link LogHub.history} (default 2000). */
  historySize?: number;
  /** Time source (default `Date.now`). */
  now?: () => number;
}

/**
 * A field value for a text line. Values from users (names, OpenUDS
 * `client_name`) may hold terminal escapes: anything with a control
 * character is quoted, and JSON escaping is extended to C1 and DEL so no
 * raw control byte reaches the terminal.
 */
function formatValue(value: unknown): string {
  if (typeof value === "string") {
    return /^[^\s="]+$/.test(value) && !hasControlChars(value) ? value : escapeJsonControls(JSON.stringify(value));
  }
  if (value instanceof Error) return escapeJsonControls(JSON.stringify(value.message));
  if (typeof value === "object" && value !== null) return escapeJsonControls(JSON.stringify(value));
  return String(value);
}

/**
 * One JSON object per line for log shippers (`log_format: json`): `time`,
 * `level` and `msg` first and never overridden by a field of the same name
 * (that one is kept as `field_<name>`); errors as their message, bigints as
 * decimal text, a value seen twice on one path (a cycle) as `"[circular]"`.
 * A line is always written, whatever the fields hold.
 */
function jsonLine(time: number, level: LogLevel, msg: string, fields: LogFields): string {
  const record: Record<string, unknown> = { time: new Date(time).toISOString(), level, msg };
  for (const [k, v] of Object.entries(fields)) {
    if (v !== undefined) record[k in record ? `field_${k}` : k] = v;
  }
  const ancestors: object[] = [];
  const replacer = function (this: unknown, _key: string, value: unknown): unknown {
    if (value instanceof Error) return value.message;
    if (typeof value === "bigint") return value.toString();
    if (typeof value !== "object" || value === null) return value;
    // `this` is the object holding `value`: drop the ancestors that are no longer on the path.
    while (ancestors.length && ancestors.at(-1) !== this) ancestors.pop();
    if (ancestors.includes(value)) return "[circular]";
    ancestors.push(value);
    return value;
  };
  try {
    return escapeJsonControls(JSON.stringify(record, replacer));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return escapeJsonControls(JSON.stringify({ time: record.time, level, msg, log_error: reason }));
  }
}

const encoder = new TextEncoder();

function stdoutSink(line: string): void {
  // Synchronous write keeps lines whole and ordered; a closed stdout (service
  // manager gone) must not take the server down.
  try {
    Deno.stdout.writeSync(encoder.encode(line + "\n"));
  } catch {
    // Nothing sensible to do: logging is best effort.
  }
}

/** Formats, stores and distributes log records. */
export class LogHub {
  #level: number;
  #format: "text" | "json";
  #sink: (line: string, record: LogRecord) => void;
  #history: LogRecord[] = [];
  #historySize: number;
  #listeners = new Set<(record: LogRecord) => void>();
  #now: () => number;
  #seq = 0;

  constructor(options: LogHubOptions = {}) {
    this.#level = LEVEL_RANK[options.level ?? "info"];
    this.#format = options.format ?? "text";
    this.#sink = options.sink ?? stdoutSink;
    this.#historySize = options.historySize ?? 2000;
    this.#now = options.now ?? Date.now;
  }

  /** Changes the minimum level at run time. */
  setLevel(level: LogLevel): void {
    this.#level = LEVEL_RANK[level];
  }

  /** A logger writing into this hub. */
  logger(fields: LogFields = {}): Logger {
    const emit = (level: LogLevel, msg: string, extra?: LogFields) => {
      if (LEVEL_RANK[level] < this.#level) return;
      this.#emit(level, msg, extra ? { ...fields, ...extra } : fields);
    };
    return {
      debug: (msg, f) => emit("debug", msg, f),
      info: (msg, f) => emit("info", msg, f),
      warn: (msg, f) => emit("warn", msg, f),
      error: (msg, f) => emit("error", msg, f),
      child: (more) => this.logger({ ...fields, ...more }),
    };
  }

  /** Calls `fn` for every later record; returns the unsubscribe function. */
  subscribe(fn: (record: LogRecord) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** The most recent records, oldest first. */
  history(limit = this.#historySize): LogRecord[] {
    return this.#history.slice(-Math.max(0, limit));
  }

  #emit(level: LogLevel, msg: string, fields: LogFields): void {
    const time = this.#now();
    const seq = ++this.#seq;
    let line: string;
    if (this.#format === "json") {
      line = jsonLine(time, level, msg, fields);
    } else {
      // Messages may embed user text: escapes are shown, not obeyed (line breaks the caller meant stay).
      const shown = escapeControlChars(msg);
      let text = `${new Date(time).toISOString()} ${level.toUpperCase().padEnd(5)} ${shown}`;
      for (const [k, v] of Object.entries(fields)) {
        if (v !== undefined) text += ` ${k}=${formatValue(v)}`;
      }
      line = text;
    }
    const record: LogRecord = { seq, time, level, msg, fields, line };
    this.#history.push(record);
    if (this.#history.length > this.#historySize) this.#history.splice(0, this.#history.length - this.#historySize);
    this.#sink(line, record);
    for (const listener of this.#listeners) {
      try {
        listener(record);
      } catch {
        // A broken listener must not break logging for everyone else.
      }
    }
  }
}

/** A hub that keeps records in memory only; for tests. */
export function memoryLogHub(level: LogLevel = "debug"): LogHub {
  return new LogHub({ level, sink: () => {} });
}
