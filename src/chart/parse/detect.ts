/**
 * Which parser a chart file needs (extended.md §5.5): text starting with `{`
 * that contains `META` is RPE, other `{` is official (PGR) JSON, other ASCII
 * text is PEC, anything else PBC (binary; not supported). A UTF-8 byte-order
 * mark and leading white space are skipped first (editors write them; the
 * reference would misread such a file as PBC).
 *
 * @module
 */

import type { ChartFormat } from "../model/types.ts";

/** The format of chart file bytes. */
export function detectFormat(bytes: Uint8Array): ChartFormat {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  const first = bytes[i];
  if (first === 0x7b) return hasMeta(bytes) ? "rpe" : "pgr";
  if (first !== undefined && first < 0x80) return "pec";
  return "pbc";
}

function hasMeta(b: Uint8Array): boolean {
  for (let i = 0; i + 4 <= b.length; i++) {
    if (b[i] === 0x4d && b[i + 1] === 0x45 && b[i + 2] === 0x54 && b[i + 3] === 0x41) return true;
  }
  return false;
}
