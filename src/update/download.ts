/**
 * Downloads a release artifact into a staging file beside the executable,
 * resuming a partial one with an HTTP `Range` request, then verifies its
 * size and SHA-256 (hash-wasm, streamed from disk) before anything is
 * replaced (spec 3 §5.4). A failure leaves the running binary untouched:
 * a truncated download is kept to be resumed, a wrong one is deleted.
 *
 * @module
 */

import { UpdateError } from "./errors.ts";
import type { Release } from "./manifest.ts";

/** Options of {@link downloadRelease}. */
export interface DownloadOptions {
  readonly fetch?: typeof fetch;
  /** Aborts the transfer (`update cancel`); the partial file stays for a later resume. */
  readonly signal?: AbortSignal;
}

/** What a download did. */
export interface DownloadReport {
  /** Bytes already on disk when it started (a resumed download), 0 for a fresh one. */
  readonly resumedFrom: number;
  /** Bytes transferred by this call. */
  readonly transferred: number;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

async function removeIfPresent(path: string): Promise<void> {
  await Deno.remove(path).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

/** The first byte of a `Content-Range: bytes a-b/total` answer and its total, or null when malformed. */
function contentRange(header: string | null): { start: number; total: number | null } | null {
  const m = header ? /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim()) : null;
  return m ? { start: Number(m[1]), total: m[3] === "*" ? null : Number(m[3]) } : null;
}

/** Why the download was aborted: the reason given (a time-out), else a cancel. */
function abortError(signal: AbortSignal): UpdateError {
  return signal.reason instanceof UpdateError
    ? signal.reason
    : new UpdateError("CANCELLED", "the download was cancelled");
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** SHA-256 of a file, read in chunks. */
export async function sha256File(path: string): Promise<string> {
  // Loaded with the first download (issue 15 "Load on demand"): most processes never update themselves.
  const { createSHA256 } = await import("hash-wasm");
  const hasher = await createSHA256();
  hasher.init();
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(1 << 20);
  for (;;) {
    const n = await file.read(buffer);
    if (n === null) break;
    hasher.update(buffer.subarray(0, n));
  }
  return hasher.digest("hex");
}

/** Writes the body to `path` (appending from `offset`), never past `size` bytes in all. */
async function receive(response: Response, path: string, offset: number, size: number): Promise<number> {
  const file = await Deno.open(
    path,
    offset ? { write: true, append: true } : { write: true, create: true, truncate: true },
  );
  let written = 0;
  try {
    if (!response.body) throw new UpdateError("TRUNCATED", "the response has no body");
    for await (const chunk of response.body) {
      if (offset + written + chunk.length > size) {
        throw new UpdateError("SIZE", `the artifact is larger than the manifest's ${size} bytes`);
      }
      let done = 0;
      while (done < chunk.length) done += await file.write(chunk.subarray(done));
      written += chunk.length;
    }
  } catch (error) {
    if (error instanceof UpdateError) throw error;
    const at = offset + written;
    throw new UpdateError("TRUNCATED", `the download stopped at ${at} of ${size} bytes (${reasonOf(error)})`);
  } finally {
    file.close();
  }
  return written;
}

/**
 * Downloads `release` to `path` (resuming what is there) and verifies it.
 * Resolves once `path` holds exactly the artifact; rejects with an
 * {@link UpdateError} otherwise.
 */
export async function downloadRelease(
  release: Release,
  path: string,
  options: DownloadOptions = {},
): Promise<DownloadReport> {
  const doFetch = options.fetch ?? fetch;
  let have = await sizeOf(path);
  if (have > release.size) {
    await removeIfPresent(path);
    have = 0;
  }
  const resumedFrom = have;
  let transferred = 0;
  for (let attempt = 0; have < release.size && attempt < 2; attempt++) {
    const headers = new Headers(have ? { range: `bytes=${have}-` } : {});
    let response: Response;
    try {
      response = await doFetch(release.url, { headers, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      if (options.signal?.aborted) throw abortError(options.signal);
      throw new UpdateError("DOWNLOAD", `cannot fetch ${release.url}: ${reasonOf(error)}`);
    }
    if (response.status === 416 && have) {
      // The server will not serve our range (the file changed?): start over once.
      await response.body?.cancel();
      await removeIfPresent(path);
      have = 0;
      continue;
    }
    if (response.status === 206) {
      const range = contentRange(response.headers.get("content-range"));
      if (!range || range.start !== have || (range.total !== null && range.total !== release.size)) {
        await response.body?.cancel();
        throw new UpdateError(
          "DOWNLOAD",
          `the server answered range ${response.headers.get("content-range") ?? "(none)"} to bytes=${have}-`,
        );
      }
    } else if (response.status === 200) {
      have = 0; // the whole file again (the server ignores ranges)
    } else {
      await response.body?.cancel();
      throw new UpdateError("DOWNLOAD", `${release.url} answered HTTP ${response.status}`);
    }
    const length = Number(response.headers.get("content-length") ?? NaN);
    if (Number.isFinite(length) && have + length > release.size) {
      await response.body?.cancel();
      throw new UpdateError("SIZE", `the artifact is larger than the manifest's ${release.size} bytes`);
    }
    try {
      transferred += await receive(response, path, have, release.size);
    } catch (error) {
      if (options.signal?.aborted) throw abortError(options.signal);
      throw error;
    }
    have = await sizeOf(path);
    break;
  }
  if (have < release.size) {
    throw new UpdateError(
      "TRUNCATED",
      `the download ended at ${have} of ${release.size} bytes; the next attempt resumes from there`,
    );
  }
  const digest = await sha256File(path);
  if (digest !== release.sha256) {
    // A complete file with the wrong hash is never resumed: it goes.
    await removeIfPresent(path);
    throw new UpdateError(
      "CHECKSUM",
      `SHA-256 of the download is ${digest}, the manifest says ${release.sha256}; the download was discarded`,
    );
  }
  return { resumedFrom, transferred };
}
