/**
 * Touches and Judges as received, read without building their items (issue
 * 15, "less garbage per relayed message"). The relay forwards a telemetry
 * payload's bytes and persistence stores them as they came (protocol.md
 * §5.4), so on the hot path nothing needs the decoded frames: decoding them
 * anyway made ~120 objects per Touches message, most of the garbage of a
 * busy server. {@link readClientCommand} checks a telemetry payload exactly
 * as the schema's decoder would, counts its items for the telemetry budget,
 * and returns a command whose `frames` / `judges` are decoded by the schema
 * codec the first time something asks for them (a plugin, a feed, a test).
 *
 * The wire layout the check walks is the schema's (`schema.ts`): `Touches {
 * frames: Vec<TouchFrame { time: f32, points: Vec<(i8, CompactPos { x: f16,
 * y: f16 })> }> }` and `Judges { judges: Vec<JudgeEvent { time: f32, line_id:
 * u32, note_id: u32, judgement: Judgement }> }`; every bit pattern of those
 * numbers is valid, only lengths and the judgement tag can be wrong. A
 * payload the check refuses is decoded by the schema codec, which throws the
 * decoder's own error (so both paths fail alike, `telemetry_view_test.ts`).
 *
 * @module
 */

import {
  ClientCommand,
  type ClientCommand as ClientCommandValue,
  type JudgeEvent,
  Judgement,
  type TouchFrame,
} from "./schema.ts";
import { Reader } from "./reader.ts";

/** Wire tags of the two telemetry commands. */
const TOUCHES = ClientCommand.tagOf("Touches");
const JUDGES = ClientCommand.tagOf("Judges");
/** `time: f32` then the points' count (at least one byte): a frame's smallest size, as the decoder's length check uses. */
const FRAME_MIN = 5;
/** `(i8, CompactPos)`: one byte and two f16. */
const POINT_SIZE = 5;
/** `JudgeEvent`: f32, u32, u32 and the one-byte judgement. */
const JUDGE_SIZE = 13;
/** Judgement tags at or above this are invalid. */
const JUDGEMENTS = Judgement.names.length;

/** A received `Touches`: its payload, its item count, its frames decoded on first access. */
export class TouchesCommand {
  /** The variant, as on every client command. */
  readonly type = "Touches" as const;
  /** The payload as received (tag byte first, no trailing bytes): relayed and stored as is. */
  readonly raw: Uint8Array;
  /** Frames in the message. */
  readonly count: number;
  /** Frames plus their points: what the telemetry budget counts. */
  readonly items: number;
  #frames: TouchFrame[] | null = null;

  constructor(raw: Uint8Array, count: number, items: number) {
    this.raw = raw;
    this.count = count;
    this.items = items;
  }

  /** The touch frames, decoded from {@link raw} once. */
  get frames(): TouchFrame[] {
    return this.#frames ??= decodeAs<"Touches">(this.raw).frames;
  }
}

/** A received `Judges`: its payload, its event count, its events decoded on first access. */
export class JudgesCommand {
  /** The variant, as on every client command. */
  readonly type = "Judges" as const;
  /** The payload as received (tag byte first, no trailing bytes): relayed and stored as is. */
  readonly raw: Uint8Array;
  /** Judge events in the message. */
  readonly count: number;
  /** Judge events: what the telemetry budget counts. */
  readonly items: number;
  #judges: JudgeEvent[] | null = null;

  constructor(raw: Uint8Array, count: number) {
    this.raw = raw;
    this.count = count;
    this.items = count;
  }

  /** The judge events, decoded from {@link raw} once. */
  get judges(): JudgeEvent[] {
    return this.#judges ??= decodeAs<"Judges">(this.raw).judges;
  }
}

/** Decodes a payload the walk accepted: the schema's decoder, so the items are what it gives. */
function decodeAs<T extends "Touches" | "Judges">(raw: Uint8Array): Extract<ClientCommandValue, { type: T }> {
  return ClientCommand.read(new Reader(raw)) as Extract<ClientCommandValue, { type: T }>;
}

/** A walk over a payload: where it is, and what it counted (no `DataView`: it reads single bytes only). */
class Walk {
  readonly bytes: Uint8Array;
  pos = 1;
  count = 0;
  items = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /** A ULEB128 count as the decoder reads it (`reader.ts`: at most 10 bytes, below 2^53); -1 when it refuses it. */
  uleb(): number {
    const bytes = this.bytes;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10 && this.pos < bytes.length; i++) {
      const byte = bytes[this.pos++]!;
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return result > Number.MAX_SAFE_INTEGER ? -1 : result;
      scale *= 128;
    }
    return -1;
  }

  /** A count of elements of at least `size` bytes; -1 when they cannot fit in what is left (the decoder's check). */
  length(size: number): number {
    const n = this.uleb();
    return n > (this.bytes.length - this.pos) / size ? -1 : n;
  }

  /** Walks a Touches payload after its tag; false when the decoder would refuse it. */
  touches(): boolean {
    const frames = this.length(FRAME_MIN);
    if (frames < 0) return false;
    let items = frames;
    for (let i = 0; i < frames; i++) {
      if (this.bytes.length - this.pos < 4) return false;
      this.pos += 4;
      const points = this.length(POINT_SIZE);
      if (points < 0) return false;
      this.pos += points * POINT_SIZE;
      items += points;
    }
    this.count = frames;
    this.items = items;
    return true;
  }

  /** Walks a Judges payload after its tag; false when the decoder would refuse it. */
  judges(): boolean {
    const n = this.length(JUDGE_SIZE);
    if (n < 0) return false;
    const bytes = this.bytes;
    for (let i = 0, at = this.pos + 12; i < n; i++, at += JUDGE_SIZE) if (bytes[at]! >= JUDGEMENTS) return false;
    this.pos += n * JUDGE_SIZE;
    this.count = this.items = n;
    return true;
  }
}

/** A decoded telemetry command. */
export type TelemetryCommandValue = Extract<ClientCommandValue, { type: "Touches" | "Judges" }>;

/** [count, items] of a decoded telemetry command. */
function countsOf(cmd: TelemetryCommandValue): [number, number] {
  if (cmd.type === "Judges") return [cmd.judges.length, cmd.judges.length];
  let n = cmd.frames.length;
  for (const frame of cmd.frames) n += frame.points.length;
  return [cmd.frames.length, n];
}

/** `Uint8Array`'s own slice: a copy even of a Node `Buffer`, whose `slice` is a view (it would pin the chunk). */
const copyOf = (bytes: Uint8Array, end: number): Uint8Array => Uint8Array.prototype.slice.call(bytes, 0, end);

/**
 * Reads one client command payload (protocol.md §2; trailing bytes ignored,
 * as the official reader does). Touches and Judges come back as
 * {@link TouchesCommand} / {@link JudgesCommand} holding their bytes: a copy
 * of them unless `owned` (the caller hands over `payload`, which nothing
 * else keeps) and nothing trails them, so a view never pins a larger
 * received chunk. Throws {@link ProtocolError} when malformed.
 */
export function readClientCommand(payload: Uint8Array, owned: boolean): ClientCommandValue {
  const tag = payload[0];
  if (tag !== TOUCHES && tag !== JUDGES) return ClientCommand.read(new Reader(payload));
  const walk = new Walk(payload);
  if (!(tag === TOUCHES ? walk.touches() : walk.judges())) {
    const r = new Reader(payload);
    // Throws the decoder's own error; should the walk ever refuse what the decoder takes, the decoder wins.
    [walk.count, walk.items] = countsOf(ClientCommand.read(r) as TelemetryCommandValue);
    walk.pos = r.pos;
  }
  const raw = owned && walk.pos === payload.length ? payload : copyOf(payload, walk.pos);
  return tag === TOUCHES ? new TouchesCommand(raw, walk.count, walk.items) : new JudgesCommand(raw, walk.count);
}

/** Frames or judge events of a telemetry command (what its stored segment counts as messages' contents). */
export function telemetryCount(cmd: TelemetryCommandValue): number {
  return cmd instanceof TouchesCommand || cmd instanceof JudgesCommand ? cmd.count : countsOf(cmd)[0];
}

/** Items of a telemetry command for its budget: frames and their points, or judge events. */
export function telemetryItems(cmd: TelemetryCommandValue): number {
  return cmd instanceof TouchesCommand || cmd instanceof JudgesCommand ? cmd.items : countsOf(cmd)[1];
}
