/**
 * {@link ChartFiles} over a remote zip read with ranged requests
 * (`../archive_reader.ts`): only the entries the chart needs are downloaded.
 * Names resolve next to `info.yml` (exact, then ignoring case). Stored entries
 * are read in slices; deflated ones are inflated as a stream whose output may
 * not exceed the declared size (zip bombs fail at that point).
 *
 * @module
 */

import type { ArchiveReader } from "../archive_reader.ts";
import { ByteView } from "../bytes.ts";
import { readDirectory } from "../directory.ts";
import { openEntry } from "../entry_source.ts";
import { ChartProbeError } from "../errors.ts";
import { findInfoEntry, findNamed } from "../music.ts";
import { LOCAL_HEADER_SIZE, localDataOffset, type ZipEntry } from "../zip.ts";
import { ChartParseError, tooLarge } from "../parse/errors.ts";
import type { ChartFiles } from "./load.ts";

/** Bytes of a stored entry fetched per request. */
const SLICE_BYTES = 4 << 20;

/** The files of the chart in `reader`'s archive. */
export async function archiveFiles(reader: ArchiveReader): Promise<ChartFiles> {
  const entries = await readDirectory(reader);
  const info = findInfoEntry(entries);
  return {
    read: async (name, maxBytes) => {
      const e = info ? findNamed(entries, info, name) : entries.find((x) => x.name === name) ?? null;
      if (!e || e.name.endsWith("/")) return null;
      if (e.uncompressedSize > maxBytes || e.compressedSize > maxBytes) {
        tooLarge(`Cannot read ${JSON.stringify(e.name)}: ${e.uncompressedSize} bytes is over ${maxBytes}`);
      }
      return await readEntry(reader, e);
    },
  };
}

async function readEntry(reader: ArchiveReader, e: ZipEntry): Promise<Uint8Array> {
  try {
    if (e.method !== 0) {
      const source = await openEntry(reader, e, { maxEntryBytes: e.uncompressedSize });
      if (source.size === 0) return new Uint8Array(0);
      const view = new ByteView(source.size);
      await source.fill(view, 0, source.size);
      if (!view.has(0, source.size)) throw new ChartProbeError("corrupt_zip", `Cannot inflate ${e.name}`);
      return view.upTo(0, source.size);
    }
    if (e.flags & 1) throw new ChartProbeError("unsupported", `Cannot read ${JSON.stringify(e.name)}: it is encrypted`);
    if (e.compressedSize !== e.uncompressedSize) {
      throw new ChartProbeError(
        "corrupt_zip",
        `Cannot read ${JSON.stringify(e.name)}: stored entry with differing sizes`,
      );
    }
    const header = await reader.read(e.localOffset, LOCAL_HEADER_SIZE, { keep: false });
    const start = e.localOffset + localDataOffset(header, e.name);
    if (start + e.compressedSize > reader.size) {
      throw new ChartProbeError("corrupt_zip", `Cannot read ${JSON.stringify(e.name)}: it runs past the archive's end`);
    }
    const out = new Uint8Array(e.uncompressedSize);
    for (let at = 0; at < out.length; at += SLICE_BYTES) {
      const len = Math.min(SLICE_BYTES, out.length - at);
      out.set((await reader.read(start + at, len, { keep: false })).subarray(0, len), at);
    }
    return out;
  } catch (err) {
    // Archive structure problems are problems of the chart; transport failures stay ChartProbeErrors.
    if (err instanceof ChartProbeError && ["corrupt_zip", "unsupported", "too_large", "not_zip"].includes(err.kind)) {
      throw new ChartParseError(
        err.kind === "too_large" ? "too_large" : err.kind === "unsupported" ? "unsupported" : "invalid",
        err.message,
        { cause: err },
      );
    }
    throw err;
  }
}
