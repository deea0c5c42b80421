/**
 * Locating and reading an archive's central directory through an
 * {@link ArchiveReader}: the end record from the last bytes (widening the
 * search to the longest possible comment when needed), the ZIP64 end record
 * when the locator points to one, then the directory itself.
 *
 * @module
 */

import type { ArchiveReader } from "./archive_reader.ts";
import { ChartProbeError } from "./errors.ts";
import {
  type CentralDirectoryLocation,
  type EndRecord,
  EOCD_SEARCH_BYTES,
  findEndRecord,
  needsZip64,
  parseCentralDirectory,
  parseZip64End,
  ZIP64_EOCD_SIZE,
  type ZipEntry,
} from "./zip.ts";

/** Bytes read from the end first: the end record with a short comment and a directory of ~100 entries. */
export const TAIL_BYTES = 8192;
/** Largest central directory read. */
export const MAX_DIRECTORY_BYTES = 4 << 20;
const MIN_ENTRY_BYTES = 46;

async function endRecord(reader: ArchiveReader): Promise<EndRecord> {
  for (const want of [TAIL_BYTES, EOCD_SEARCH_BYTES]) {
    const len = Math.min(want, reader.size);
    const start = reader.size - len;
    const found = findEndRecord(await reader.read(start, len), start);
    if (found) return found;
    if (len === reader.size) break;
  }
  throw new ChartProbeError("not_zip", "Cannot read the chart archive: no zip end-of-central-directory record");
}

/** Reads the entries of the archive's central directory. */
export async function readDirectory(reader: ArchiveReader): Promise<ZipEntry[]> {
  const rec = await endRecord(reader);
  let loc: CentralDirectoryLocation = rec;
  let end = rec.at;
  if (needsZip64(rec)) {
    if (rec.zip64At === null || rec.zip64At + ZIP64_EOCD_SIZE > rec.at) {
      throw new ChartProbeError("corrupt_zip", "Cannot read the chart archive: ZIP64 fields without a valid locator");
    }
    loc = parseZip64End(await reader.read(rec.zip64At, ZIP64_EOCD_SIZE));
    end = rec.zip64At;
  }
  if (loc.size > MAX_DIRECTORY_BYTES) {
    throw new ChartProbeError(
      "too_large",
      `Cannot read the chart archive: central directory of ${loc.size} bytes is over ${MAX_DIRECTORY_BYTES}`,
    );
  }
  if (loc.offset + loc.size > end || loc.entries * MIN_ENTRY_BYTES > loc.size) {
    throw new ChartProbeError(
      "corrupt_zip",
      `Cannot read the chart archive: central directory (${loc.entries} entries, ${loc.size} bytes at ` +
        `${loc.offset}) does not fit before byte ${end}`,
    );
  }
  if (loc.entries === 0) throw new ChartProbeError("no_audio", "Cannot read the chart archive: it has no entries");
  return parseCentralDirectory(await reader.read(loc.offset, loc.size), loc.entries);
}
