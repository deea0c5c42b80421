/**
 * ID3v2 tags in front of MP3 (and, unofficially, FLAC) streams. A tag's size
 * is syncsafe (7 bits per byte); a footer flag adds 10 bytes. Tags with cover
 * art can be hundreds of KiB, so probes jump over them instead of scanning.
 *
 * @module
 */

import { type ByteView, hasAscii } from "./bytes.ts";

/** At most this many tags in a row are skipped (some taggers append a second one). */
const MAX_TAGS = 4;

/** Total length of an ID3v2 tag starting at `at` in `head`, or 0 when there is none. */
export function id3v2Length(head: Uint8Array, at = 0): number {
  if (!hasAscii(head, at, "ID3") || head.byteLength < at + 10) return 0;
  const major = head[at + 3]!;
  const flags = head[at + 5]!;
  if (major < 2 || major > 4 || head[at + 4] === 0xff) return 0;
  let size = 0;
  for (let i = 6; i < 10; i++) {
    const b = head[at + i]!;
    if (b & 0x80) return 0; // not syncsafe: not a tag
    size = size * 128 + b;
  }
  return 10 + size + (major === 4 && flags & 0x10 ? 10 : 0);
}

/** Offset of the first byte after the ID3v2 tags at `start` (`start` itself when there is none). */
export function skipId3v2(view: ByteView, start = 0): number {
  let at = start;
  for (let i = 0; i < MAX_TAGS; i++) {
    const len = id3v2Length(view.upTo(at, 10));
    if (len === 0) break;
    at += len;
  }
  return at;
}
