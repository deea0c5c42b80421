/**
 * The record codec of each segment format version (`format.ts`).
 *
 * @module
 */

import type { FormatVersion, RecordCodec } from "./format.ts";
import { V1_CODEC } from "./record_v1.ts";
import { V2_CODEC } from "./record_v2.ts";

/** The codec of segments of format `version`. */
export function codecFor(version: FormatVersion): RecordCodec {
  return version === 1 ? V1_CODEC : V2_CODEC;
}
