/**
 * The pipe protocol between the plugin host and a plugin's child process:
 * frames of a 4-byte little-endian length and a UTF-8 JSON body. Values JSON
 * cannot carry are tagged: a `bigint` (WIT `u64`/`s64`) as `{"$n": "<decimal>"}`,
 * a `Uint8Array` (WIT `list<u8>`) as `{"$b": "<base64>"}`. Shared by both
 * sides; the child reads synchronously (`readSync`) so that host functions
 * stay synchronous for the guest.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** Largest frame either side accepts (a 2 MiB HTTP body in base64 fits many times over). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** Host -> child: call one export of the component. */
export interface CallMessage {
  readonly t: "call";
  /** `init`, `getInfo`, `cleanup`, `onEvent` or `onApi`. */
  readonly fn: string;
  readonly args: readonly unknown[];
}

/** Host -> child: the answer to a host function call. `v` is the value; `e` makes a `result` import return `err(e)`. */
export interface ReplyMessage {
  readonly t: "reply";
  readonly v?: unknown;
  readonly e?: string;
}

/** Child -> host: the component is instantiated and waits for calls. */
export interface ReadyMessage {
  readonly t: "ready";
  /** The functions the component imports, by interface key. */
  readonly used: Readonly<Record<string, readonly string[]>>;
}

/** Child -> host: the guest called a host function (interface key without version, camelCase function). */
export interface HostCallMessage {
  readonly t: "host";
  readonly i: string;
  readonly f: string;
  readonly a: readonly unknown[];
}

/** Child -> host: an export returned (`ok`), returned its error case (`error`) or trapped (`trap`). */
export type ReturnMessage =
  | { readonly t: "ret"; readonly ok: true; readonly v: unknown }
  | { readonly t: "ret"; readonly ok: false; readonly kind: "error" | "trap"; readonly message: string };

/** Child -> host: loading failed; the child exits after sending it. */
export interface FatalMessage {
  readonly t: "fatal";
  readonly message: string;
}

/** What the host sends. */
export type HostToChild = CallMessage | ReplyMessage;
/** What the child sends. */
export type ChildToHost = ReadyMessage | HostCallMessage | ReturnMessage | FatalMessage;

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return { $n: value.toString() };
  if (value instanceof Uint8Array) {
    return { $b: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
  }
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const v = value as { $n?: unknown; $b?: unknown };
      if (typeof v.$n === "string") return BigInt(v.$n);
      if (typeof v.$b === "string") return new Uint8Array(Buffer.from(v.$b, "base64"));
    }
  }
  return value;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** One message as a frame. Throws a RangeError when it exceeds {@link MAX_FRAME_BYTES}. */
export function encodeFrame(message: unknown): Uint8Array {
  const body = encoder.encode(JSON.stringify(message, replacer));
  if (body.length > MAX_FRAME_BYTES) {
    throw new RangeError(`Cannot send a message of ${body.length} bytes: the limit is ${MAX_FRAME_BYTES}`);
  }
  const frame = new Uint8Array(4 + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, true);
  frame.set(body, 4);
  return frame;
}

/** A frame body as a message. Throws on malformed UTF-8 or JSON. */
export function decodeBody(body: Uint8Array): unknown {
  return JSON.parse(decoder.decode(body), reviver);
}

/**
 * Splits a byte stream into frame bodies (the host's side, fed from the
 * child's stdout). Throws a RangeError on a frame over the limit: the child
 * broke the protocol.
 */
export class FrameSplitter {
  #buffer = new Uint8Array(0);

  /** Adds bytes; returns the complete messages they finish. */
  push(chunk: Uint8Array): unknown[] {
    const joined = new Uint8Array(this.#buffer.length + chunk.length);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.length);
    const out: unknown[] = [];
    let at = 0;
    while (joined.length - at >= 4) {
      const length = new DataView(joined.buffer, at, 4).getUint32(0, true);
      if (length > MAX_FRAME_BYTES) {
        throw new RangeError(`Cannot read a frame of ${length} bytes: the limit is ${MAX_FRAME_BYTES}`);
      }
      if (joined.length - at - 4 < length) break;
      out.push(decodeBody(joined.subarray(at + 4, at + 4 + length)));
      at += 4 + length;
    }
    this.#buffer = joined.slice(at);
    return out;
  }

  /** Bytes of an unfinished frame. */
  get pending(): number {
    return this.#buffer.length;
  }
}

/** What {@link readFrameSync} reads from. */
export interface SyncReader {
  readSync(buffer: Uint8Array): number | null;
}

/** What {@link writeFrameSync} writes to. */
export interface SyncWriter {
  writeSync(buffer: Uint8Array): number;
}

function readExactlySync(reader: SyncReader, length: number): Uint8Array | null {
  const out = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const n = reader.readSync(out.subarray(filled));
    if (n === null || n === 0) return null;
    filled += n;
  }
  return out;
}

/** Reads one message, blocking; null at end of input (the host went away). */
export function readFrameSync(reader: SyncReader): unknown | null {
  const header = readExactlySync(reader, 4);
  if (!header) return null;
  const length = new DataView(header.buffer).getUint32(0, true);
  if (length > MAX_FRAME_BYTES) {
    throw new RangeError(`Cannot read a frame of ${length} bytes: the limit is ${MAX_FRAME_BYTES}`);
  }
  const body = readExactlySync(reader, length);
  if (!body) return null;
  return decodeBody(body);
}

/** Writes one message, blocking until all of it is written. */
export function writeFrameSync(writer: SyncWriter, message: unknown): void {
  const frame = encodeFrame(message);
  let written = 0;
  while (written < frame.length) written += writer.writeSync(frame.subarray(written));
}
