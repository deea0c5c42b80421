/**
 * Parses game-server log lines into room events for the `room` service
 * (spec 2 §4.4 behaviour 2). Two dialects:
 *
 * - this project's lines (`src/events/room_log.ts`), in the text format
 *   (`<time> INFO  room created room=abc user=100 name=Alice ...`) or the JSON
 *   format (`{"time":...,"msg":"room created","room":"abc",...}`);
 * - the official server's texts (peers §5.2), ANSI colour codes stripped:
 *   `user create room`, `user join room`, `user leave room`, `cycle room`,
 *   `room users all disconnected, dropping room`, and the broadcast
 *   messages `Message(JoinRoom { user: N, name: "..." })`, `LeaveRoom`,
 *   `NewHost`, `SelectChart ... id: N`, `ChangeState(...)`.
 *
 * Pure: a line in, zero or more events out.
 *
 * @module
 */

/** Room states the pages tell apart. */
export type TrackedState = "selecting_chart" | "waiting_for_ready" | "playing" | "unknown";

/** What a line says happened. Fields left out were not on the line. */
export type LogEvent =
  | { t: "create"; room: string; user?: number; name?: string }
  | { t: "join"; room: string; user: number; name?: string }
  | { t: "leave"; room?: string; user: number; name?: string }
  | { t: "delete"; room: string }
  | { t: "host"; room?: string; user: number }
  | { t: "state"; room?: string; state: TrackedState; chart?: number }
  | { t: "chart"; room?: string; user?: number; chart: number; chartName?: string }
  | { t: "cycle"; room: string; cycle: boolean }
  | { t: "lock"; room: string; lock: boolean }
  | { t: "name"; user: number; name: string }
  | { t: "reset" };

/** A parsed line: its events and its time when the line carries one. */
export interface ParsedLine {
  readonly at: number | null;
  readonly events: LogEvent[];
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;
const ROOM_ID = /^[A-Za-z0-9_-]{1,20}$/;
const TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d))\s+/;
const LEVEL = /^(TRACE|DEBUG|INFO|WARN|ERROR)\s+/i;

/** Removes terminal colour codes. */
export function stripAnsi(line: string): string {
  return line.replace(ANSI, "");
}

/** Splits `message key=value key="quoted value" ...` (logfmt-like, as `src/util/log.ts` writes it). */
export function splitFields(rest: string): { msg: string; fields: Map<string, string> } {
  const fields = new Map<string, string>();
  const first = /\s[A-Za-z_][A-Za-z0-9_.]*=/.exec(rest);
  const msg = (first ? rest.slice(0, first.index) : rest).trim();
  let i = first ? first.index : rest.length;
  while (i < rest.length) {
    const m = /^\s+([A-Za-z_][A-Za-z0-9_.]*)=/.exec(rest.slice(i));
    if (!m) break;
    i += m[0].length;
    let value: string;
    if (rest[i] === '"') {
      let j = i + 1;
      while (j < rest.length && rest[j] !== '"') j += rest[j] === "\\" ? 2 : 1;
      try {
        value = JSON.parse(rest.slice(i, j + 1)) as string;
      } catch {
        value = rest.slice(i + 1, j);
      }
      i = j + 1;
    } else {
      const m2 = /^[^\s]*/.exec(rest.slice(i))!;
      value = m2[0];
      i += value.length;
    }
    fields.set(m[1]!, value);
  }
  return { msg, fields };
}

function int(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && /^-?\d{1,10}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

function bool(v: unknown): boolean | undefined {
  return v === true || v === "true" ? true : v === false || v === "false" ? false : undefined;
}

function roomOf(v: unknown): string | undefined {
  return typeof v === "string" && ROOM_ID.test(v) ? v : undefined;
}

/** Chorus and official state names -> the tracked state. */
export function stateOf(v: unknown): TrackedState {
  const s = String(v).toLowerCase().replace(/[^a-z]/g, "");
  if (s.startsWith("select")) return "selecting_chart";
  if (s.startsWith("waiting") || s.startsWith("waitfor")) return "waiting_for_ready";
  if (s.startsWith("playing")) return "playing";
  return "unknown";
}

/** Events of one of this project's lines (message and fields). */
function chorusEvents(msg: string, f: (k: string) => unknown): LogEvent[] {
  const room = roomOf(f("room"));
  const user = int(f("user"));
  const name = typeof f("name") === "string" ? f("name") as string : undefined;
  const named = name === undefined ? {} : { name };
  // The server stopped: its rooms are gone (persistent ones come back with `room created` at the next start).
  if (msg === "game server stopped") return [{ t: "reset" }];
  if (!room) return [];
  switch (msg) {
    case "room created": {
      const out: LogEvent[] = [{ t: "create", room, ...(user === undefined ? {} : { user }), ...named }];
      const host = int(f("host"));
      if (host !== undefined && host !== user && host >= 0) out.push({ t: "host", room, user: host });
      return [...out, ...updates(room, f)];
    }
    case "user joined room":
      return user === undefined ? [] : [{ t: "join", room, user, ...named }];
    case "user left room":
      return user === undefined ? [] : [{ t: "leave", room, user, ...named }];
    case "room deleted":
      return [{ t: "delete", room }];
    case "room updated": {
      const host = int(f("host"));
      return [
        ...(host !== undefined && host >= 0 ? [{ t: "host" as const, room, user: host }] : []),
        ...updates(room, f),
      ];
    }
    default:
      return [];
  }
}

function updates(room: string, f: (k: string) => unknown): LogEvent[] {
  const out: LogEvent[] = [];
  const chart = int(f("chart"));
  if (chart !== undefined) out.push({ t: "chart", room, chart });
  if (f("state") !== undefined) out.push({ t: "state", room, state: stateOf(f("state")) });
  const cycle = bool(f("cycle"));
  if (cycle !== undefined) out.push({ t: "cycle", room, cycle });
  const lock = bool(f("lock"));
  if (lock !== undefined) out.push({ t: "lock", room, lock });
  return out;
}

/** The room a line of the official server is about: a `room="x"` or `room=x` field anywhere. */
function officialRoom(text: string): string | undefined {
  const m = /\broom="?([A-Za-z0-9_-]{1,20})"?(?=[\s,})]|$)/.exec(text);
  return m ? m[1] : undefined;
}

/** Events of one line of the official server (peers §5.2). */
function officialEvents(text: string): LogEvent[] {
  const out: LogEvent[] = [];
  const room = officialRoom(text);
  const at = room === undefined ? {} : { room };
  const user = int(/\buser=(-?\d+)/.exec(text)?.[1]);
  if (/\buser create room\b/.test(text) && room && user !== undefined) out.push({ t: "create", room, user });
  else if (/\buser join room\b/.test(text) && room && user !== undefined) out.push({ t: "join", room, user });
  else if (/\buser leave room\b/.test(text) && user !== undefined) out.push({ t: "leave", ...at, user });
  else if (/\bcycle room\b/.test(text) && room) {
    const cycle = bool(/\bcycle=(true|false)/.exec(text)?.[1]);
    if (cycle !== undefined) out.push({ t: "cycle", room, cycle });
  } else if (/room users all disconnected, dropping room/.test(text) && room) out.push({ t: "delete", room });

  const message = /Message\((\w+)(?: \{ ([^}]*) \})?\)/.exec(text);
  if (message) {
    const body = message[2] ?? "";
    const mUser = int(/\buser: (-?\d+)/.exec(body)?.[1]);
    const mName = /\bname: "((?:[^"\\]|\\.)*)"/.exec(body)?.[1];
    const name = mName === undefined ? undefined : unescapeRust(mName);
    switch (message[1]) {
      case "JoinRoom":
        if (mUser !== undefined && name !== undefined) out.push({ t: "name", user: mUser, name });
        if (mUser !== undefined && room) out.push({ t: "join", room, user: mUser, ...(name ? { name } : {}) });
        break;
      case "LeaveRoom":
        if (mUser !== undefined && name !== undefined) out.push({ t: "name", user: mUser, name });
        if (mUser !== undefined) out.push({ t: "leave", ...at, user: mUser, ...(name ? { name } : {}) });
        break;
      case "NewHost":
        if (mUser !== undefined) out.push({ t: "host", ...at, user: mUser });
        break;
      case "SelectChart": {
        const chart = int(/\bid: (-?\d+)/.exec(body)?.[1]);
        const by = mUser === undefined ? {} : { user: mUser };
        if (chart !== undefined) out.push({ t: "chart", ...at, ...by, chart, ...(name ? { chartName: name } : {}) });
        break;
      }
    }
  }
  const change = /ChangeState\((\w+)(?:\((?:Some\()?(-?\d+)?)?/.exec(text);
  if (change) {
    const chart = int(change[2]);
    out.push({ t: "state", ...at, state: stateOf(change[1]), ...(chart === undefined ? {} : { chart }) });
  }
  return out;
}

function unescapeRust(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s;
  }
}

/** Parses one log line of either server. */
export function parseLogLine(raw: string): ParsedLine {
  const line = stripAnsi(raw).trim();
  if (line.startsWith("{")) {
    try {
      const obj = JSON.parse(line) as Record<string, unknown>;
      const at = typeof obj.time === "string" ? Date.parse(obj.time) : NaN;
      const events = typeof obj.msg === "string" ? chorusEvents(obj.msg, (k) => obj[k]) : [];
      return { at: Number.isFinite(at) ? at : null, events };
    } catch {
      return { at: null, events: [] };
    }
  }
  let rest = line;
  let at: number | null = null;
  const time = TIME.exec(rest);
  if (time) {
    const t = Date.parse(time[1]!);
    at = Number.isFinite(t) ? t : null;
    rest = rest.slice(time[0].length);
  }
  const level = LEVEL.exec(rest);
  if (level) rest = rest.slice(level[0].length);
  // The official server names a target (`phira_mp_server::room: ...`); this project's lines never do. A line of
  // ours is only ever read as ours, so user text in it (a console command) cannot pose as an official event.
  if (time && level && !/^[\w:]+: /.test(rest)) {
    const { msg, fields } = splitFields(rest);
    return { at, events: chorusEvents(msg, (k) => fields.get(k)) };
  }
  return { at, events: officialEvents(line) };
}
