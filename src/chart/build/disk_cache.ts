/**
 * The on-disk cache of built charts (issue 19; extended.md §5.5): per chart id
 * one `{id}.{key}.bin` (the bincode) and `{id}.{key}.json` (the browser JSON),
 * where `key` is a hash of the chart's `chartUpdated` and the cache format
 * version -- so a hit needs no metadata file and a changed chart or a newer
 * Chorus simply misses. Files are written to `.tmp-*` names and renamed into
 * place (atomic on one file system); the total size is bounded, evicting the
 * least recently used chart first. Recency survives restarts through the
 * files' modification times.
 *
 * @module
 */

import { join } from "node:path";
import type { Clock } from "../../util/clock.ts";

/** Bumped whenever parsing or encoding changes what a chart id produces. */
export const CACHE_FORMAT_VERSION = 1;

const NAME = /^(\d+)\.([0-9a-f]{16})\.(bin|json)$/;

/** One cached chart. */
export interface CacheEntry {
  id: string;
  hash: string;
  binPath: string;
  jsonPath: string;
  binBytes: number;
  jsonBytes: number;
  lastUsed: number;
}

/** The cache key of a chart version. */
export async function cacheHash(chartUpdated: string): Promise<string> {
  const data = new TextEncoder().encode(`chorus-chart-cache ${CACHE_FORMAT_VERSION}\n${chartUpdated}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** LRU-bounded directory of built charts. Create with {@link DiskCache.open}. */
export class DiskCache {
  readonly dir: string;
  readonly maxBytes: number;
  readonly #clock: Clock;
  readonly #entries = new Map<string, CacheEntry>(); // by id, least recently used first
  #total = 0;

  private constructor(dir: string, maxBytes: number, clock: Clock) {
    this.dir = dir;
    this.maxBytes = maxBytes;
    this.#clock = clock;
  }

  /** Opens (creating) `dir`: indexes complete entries, removes temporary files and incomplete pairs. */
  static async open(dir: string, maxBytes: number, clock: Clock): Promise<DiskCache> {
    await Deno.mkdir(dir, { recursive: true });
    const c = new DiskCache(dir, maxBytes, clock);
    const found = new Map<string, { bin?: Deno.FileInfo; json?: Deno.FileInfo; id: string; hash: string }>();
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile) continue;
      if (e.name.startsWith(".tmp-")) {
        await Deno.remove(join(dir, e.name)).catch(() => {});
        continue;
      }
      const m = NAME.exec(e.name);
      if (!m) continue;
      const k = `${m[1]}.${m[2]}`;
      const f = found.get(k) ?? { id: m[1]!, hash: m[2]! };
      f[m[3] as "bin" | "json"] = await Deno.stat(join(dir, e.name));
      found.set(k, f);
    }
    const complete: CacheEntry[] = [];
    for (const f of found.values()) {
      const paths = c.#paths(f.id, f.hash);
      if (!f.bin || !f.json) {
        await c.#unlink(paths.binPath, paths.jsonPath);
        continue;
      }
      complete.push({
        id: f.id,
        hash: f.hash,
        ...paths,
        binBytes: f.bin.size,
        jsonBytes: f.json.size,
        lastUsed: f.bin.mtime?.getTime() ?? 0,
      });
    }
    complete.sort((a, b) => a.lastUsed - b.lastUsed);
    for (const e of complete) {
      const old = c.#entries.get(e.id);
      if (old) await c.#drop(old); // an older version of the same chart
      c.#entries.set(e.id, e);
      c.#total += e.binBytes + e.jsonBytes;
    }
    await c.#evict(null);
    return c;
  }

  #paths(id: string, hash: string): { binPath: string; jsonPath: string } {
    return { binPath: join(this.dir, `${id}.${hash}.bin`), jsonPath: join(this.dir, `${id}.${hash}.json`) };
  }

  /** Bytes held. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Ids held, least recently used first. */
  ids(): string[] {
    return [...this.#entries.keys()];
  }

  /** The entry of `id` at version `hash`, marked as just used; `null` on a miss. */
  get(id: string, hash: string): CacheEntry | null {
    const e = this.#entries.get(id);
    if (!e || e.hash !== hash) return null;
    e.lastUsed = this.#clock.now();
    this.#entries.delete(id);
    this.#entries.set(id, e);
    const t = new Date(e.lastUsed);
    try {
      Deno.utimeSync(e.binPath, t, t); // recency for the next start (a metadata write); a lost update costs little
    } catch {
      // gone or read-only: the next lookup finds out
    }
    return e;
  }

  /** Forgets an entry whose files turned out to be gone. */
  async forget(e: CacheEntry): Promise<void> {
    if (this.#entries.get(e.id) === e) await this.#drop(e);
  }

  /**
   * Stores a chart: writes `bin` chunks and `json` to temporary files, renames them into place, replaces an older
   * version and evicts least recently used charts beyond the size bound. `null` when the chart alone is over it
   * (nothing is kept).
   */
  async put(id: string, hash: string, bin: readonly Uint8Array[], json: string): Promise<CacheEntry | null> {
    const jsonBytes = new TextEncoder().encode(json);
    const binBytes = bin.reduce((n, c) => n + c.byteLength, 0);
    if (binBytes + jsonBytes.byteLength > this.maxBytes) return null;
    const paths = this.#paths(id, hash);
    const tmp = (ext: string) => join(this.dir, `.tmp-${id}-${crypto.randomUUID()}.${ext}`);
    const [tb, tj] = [tmp("bin"), tmp("json")];
    try {
      const f = await Deno.open(tb, { write: true, createNew: true });
      try {
        for (const c of bin) for (let at = 0; at < c.byteLength;) at += await f.write(c.subarray(at));
      } finally {
        f.close();
      }
      await Deno.writeFile(tj, jsonBytes);
      // The JSON first: a .bin in place always has its .json (open() drops incomplete pairs).
      await Deno.rename(tj, paths.jsonPath);
      await Deno.rename(tb, paths.binPath);
    } catch (e) {
      await this.#unlink(tb, tj);
      throw e;
    }
    const old = this.#entries.get(id);
    if (old && old.hash !== hash) await this.#drop(old);
    else if (old) this.#total -= old.binBytes + old.jsonBytes;
    const entry: CacheEntry = {
      id,
      hash,
      ...paths,
      binBytes,
      jsonBytes: jsonBytes.byteLength,
      lastUsed: this.#clock.now(),
    };
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    this.#total += binBytes + jsonBytes.byteLength;
    await this.#evict(id);
    return entry;
  }

  async #evict(keep: string | null): Promise<void> {
    for (const e of [...this.#entries.values()]) {
      if (this.#total <= this.maxBytes) break;
      if (e.id !== keep) await this.#drop(e);
    }
  }

  async #drop(e: CacheEntry): Promise<void> {
    this.#entries.delete(e.id);
    this.#total -= e.binBytes + e.jsonBytes;
    // A response still streaming from the file keeps reading it after the unlink (POSIX).
    await this.#unlink(e.binPath, e.jsonPath);
  }

  async #unlink(...paths: string[]): Promise<void> {
    for (const p of paths) await Deno.remove(p).catch(() => {});
  }
}
