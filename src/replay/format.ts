/**
 * The `.phirarec` replay format of the tphira family (the one legacy
 * operators and their tools already read): a 14-byte little-endian header --
 * u16 magic `0x504D` (bytes `4D 50`, "MP"), u32 chart id, u32 user id, u32
 * record id (0 until the player's `Played` arrives; patched in place at
 * offset {@link RECORD_ID_OFFSET}) -- then a sequence of entries
 * `[u32 LE length][payload]`, each payload one client command (`Touches` or
 * `Judges`) exactly as the client sent it on the wire, without the frame's
 * varint length.
 *
 * Pure functions over bytes: the writer and the store (`writer.ts`,
 * `store.ts`) do the file I/O. The reader also accepts the variants other
 * readers of the family accept (byte-swapped magic with big-endian fields, a
 * 16-byte header starting with `PHIR`, and a magic-less 12-byte header), so
 * files from other servers can be read back; the writer writes the standard
 * form only.
 *
 * @module
 */

/** The magic as a little-endian u16 (bytes `4D 50`). */
export const REPLAY_MAGIC = 0x504d;
/** Length of the standard header. */
export const HEADER_BYTES = 14;
/** Byte offset of the record id in the standard header (patched at `Played`). */
export const RECORD_ID_OFFSET = 10;
/** Length of an entry's length prefix. */
export const ENTRY_PREFIX_BYTES = 4;
/** Largest entry a reader accepts: a protocol frame never comes near it, so anything larger is corruption. */
export const MAX_ENTRY_BYTES = 16 * 1024 * 1024;
/** File name extension. */
export const REPLAY_EXTENSION = ".phirarec";

/** What the header says. Ids are unsigned 32-bit values as stored. */
export interface ReplayHeader {
  readonly chartId: number;
  readonly userId: number;
  /** 0 while the player has not submitted a result. */
  readonly recordId: number;
}

/** Which header form a file used. */
export type HeaderVariant = "standard" | "swapped" | "phir" | "bare";

/** A parsed replay. */
export interface ParsedReplay {
  readonly header: ReplayHeader;
  readonly variant: HeaderVariant;
  /** Offset of the first entry (the header's length). */
  readonly bodyOffset: number;
  /** Entry payloads in file order (views into the input). */
  readonly entries: readonly Uint8Array[];
  /** True when the file ends inside an entry (a recording cut short): the partial tail is not in `entries`. */
  readonly truncated: boolean;
}

/** A malformed replay file. */
export class ReplayFormatError extends Error {
  override readonly name = "ReplayFormatError";
}

/** The standard 14-byte header. */
export function encodeHeader(h: ReplayHeader): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES);
  const view = new DataView(out.buffer);
  view.setUint16(0, REPLAY_MAGIC, true);
  view.setUint32(2, h.chartId >>> 0, true);
  view.setUint32(6, h.userId >>> 0, true);
  view.setUint32(RECORD_ID_OFFSET, h.recordId >>> 0, true);
  return out;
}

/** The 4 bytes written at {@link RECORD_ID_OFFSET} to patch in a record id. */
export function encodeRecordId(recordId: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, recordId >>> 0, true);
  return out;
}

/** One entry: the length prefix and the payload. */
export function encodeEntry(payload: Uint8Array): Uint8Array {
  if (payload.length > MAX_ENTRY_BYTES) throw new RangeError(`Cannot write a replay entry of ${payload.length} bytes`);
  const out = new Uint8Array(ENTRY_PREFIX_BYTES + payload.length);
  new DataView(out.buffer).setUint32(0, payload.length, true);
  out.set(payload, ENTRY_PREFIX_BYTES);
  return out;
}

const PHIR = [0x50, 0x48, 0x49, 0x52]; // "PHIR"

/** Reads the header; throws {@link ReplayFormatError} when the bytes are too short for any form. */
export function decodeHeader(bytes: Uint8Array): { header: ReplayHeader; variant: HeaderVariant; length: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (n: number) => {
    if (bytes.length < n) throw new ReplayFormatError(`replay too short: ${bytes.length} bytes, header needs ${n}`);
  };
  if (bytes.length >= 4 && PHIR.every((b, i) => bytes[i] === b)) {
    need(16);
    return { header: fields(view, 4, true), variant: "phir", length: 16 };
  }
  need(2);
  if (view.getUint16(0, true) === REPLAY_MAGIC) {
    need(HEADER_BYTES);
    return { header: fields(view, 2, true), variant: "standard", length: HEADER_BYTES };
  }
  if (view.getUint16(0, false) === REPLAY_MAGIC) {
    need(HEADER_BYTES);
    return { header: fields(view, 2, false), variant: "swapped", length: HEADER_BYTES };
  }
  need(12);
  return { header: fields(view, 0, true), variant: "bare", length: 12 };
}

function fields(view: DataView, at: number, little: boolean): ReplayHeader {
  return {
    chartId: view.getUint32(at, little),
    userId: view.getUint32(at + 4, little),
    recordId: view.getUint32(at + 8, little),
  };
}

/** Parses a whole replay file. */
export function parseReplay(bytes: Uint8Array): ParsedReplay {
  const { header, variant, length } = decodeHeader(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: Uint8Array[] = [];
  let at = length;
  let truncated = false;
  while (at < bytes.length) {
    if (bytes.length - at < ENTRY_PREFIX_BYTES) {
      truncated = true;
      break;
    }
    const size = view.getUint32(at, true);
    if (size > MAX_ENTRY_BYTES) throw new ReplayFormatError(`replay entry at byte ${at} claims ${size} bytes`);
    if (bytes.length - at - ENTRY_PREFIX_BYTES < size) {
      truncated = true;
      break;
    }
    entries.push(bytes.subarray(at + ENTRY_PREFIX_BYTES, at + ENTRY_PREFIX_BYTES + size));
    at += ENTRY_PREFIX_BYTES + size;
  }
  return { header, variant, bodyOffset: length, entries, truncated };
}
