/**
 * Fetching the release manifest (spec 3 §5.4): bounded in time (on the
 * injected clock) and in size, read as a stream so that a server sending
 * more than it announced is cut off; every failure is an
 * {@link UpdateError} `MANIFEST` saying what went wrong.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import { UpdateError } from "./errors.ts";
import { type Release, releaseFromManifest } from "./manifest.ts";

/** Time allowed for fetching the manifest. */
export const MANIFEST_TIMEOUT_MS = 30_000;
/** Largest manifest read. */
export const MAX_MANIFEST_BYTES = 64 * 1024;

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function readCapped(response: Response): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > MAX_MANIFEST_BYTES) {
    await response.body?.cancel();
    throw new UpdateError("MANIFEST", `the manifest is larger than ${MAX_MANIFEST_BYTES} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > MAX_MANIFEST_BYTES) {
      throw new UpdateError("MANIFEST", `the manifest is larger than ${MAX_MANIFEST_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) bytes.set(chunk, (at += chunk.length) - chunk.length);
  return new TextDecoder().decode(bytes);
}

/** The release for `platform` named by the manifest at `url`. */
export async function fetchRelease(
  url: string,
  platform: string,
  clock: Clock,
  doFetch: typeof fetch = fetch,
): Promise<Release> {
  const controller = new AbortController();
  const timer = clock.setTimeout(() => controller.abort(), MANIFEST_TIMEOUT_MS);
  try {
    const response = await doFetch(url, { signal: controller.signal, headers: { accept: "application/json" } });
    if (!response.ok) {
      await response.body?.cancel();
      throw new UpdateError("MANIFEST", `${url} answered HTTP ${response.status}`);
    }
    return releaseFromManifest(await readCapped(response), url, platform);
  } catch (error) {
    if (error instanceof UpdateError) throw error;
    const why = controller.signal.aborted ? "timed out" : reasonOf(error);
    throw new UpdateError("MANIFEST", `cannot fetch ${url}: ${why}`);
  } finally {
    clock.clearTimeout(timer);
  }
}
