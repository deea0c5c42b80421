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

/** A count prefix, refused (-1) when its elements of `size` bytes cannot fit in what is left (the decoder's check). */
function length(r: Reader, size: number): number {
  const n = r.uleb();
  return n > r.remaining / size ? -1 : n;
}

/** Walks a Touches payload after its tag; returns [frames, items] or null when the decoder would refuse it. */
function walkTouches(r: Reader): [number, number] | null {
  const frames = length(r, FRAME_MIN);
  if (frames < 0) return null;
  let items = frames;
  for (let i = 0; i < frames; i++) {
    if (r.remaining < 4) return null;
    r.pos += 4;
    const points = length(r, POINT_SIZE);
    if (points < 0) return null;
    r.pos += points * POINT_SIZE;
    items += points;
  }
  return [frames, items];
}

/** Walks a Judges payload after its tag; returns [events, events] or null when the decoder would refuse it. */
function walkJudges(r: Reader): [number, number] | null {
  const n = length(r, JUDGE_SIZE);
  if (n < 0) return null;
  const bytes = r.bytes;
  for (let i = 0, at = r.pos + 12; i < n; i++, at += JUDGE_SIZE) if (bytes[at]! >= JUDGEMENTS) return null;
  r.pos += n * JUDGE_SIZE;
  return [n, n];
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
  const r = new Reader(payload, 1);
  let counts: [number, number] | null;
  try {
    counts = tag === TOUCHES ? walkTouches(r) : walkJudges(r);
  } catch {
    counts = null; // A malformed count prefix: the decoder below says how.
  }
  if (!counts) {
    r.pos = 0;
    // Throws the decoder's own error; should the walk ever refuse what the decoder takes, the decoder wins.
    counts = countsOf(ClientCommand.read(r) as TelemetryCommandValue);
  }
  const raw = owned && r.pos === payload.length ? payload : payload.slice(0, r.pos);
  return tag === TOUCHES ? new TouchesCommand(raw, counts[0], counts[1]) : new JudgesCommand(raw, counts[0]);
}

/** Items of a telemetry command for its budget: frames and their points, or judge events. */
export function telemetryItems(cmd: TelemetryCommandValue): number {
  return cmd instanceof TouchesCommand || cmd instanceof JudgesCommand ? cmd.items : countsOf(cmd)[1];
}
