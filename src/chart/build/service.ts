/**
 * `GET /chart/{id}` and `GET /chart/{id}.json` (spec 1 §4.1, extended.md §5.5,
 * issue 19) as a reusable handler: the chart's metadata from upstream, then
 * the cached build for its `chartUpdated`, or a build (ranged download of the
 * archive, parse, decode, encode) written to the cache and streamed from it.
 * One build at a time per chart id (later requests wait for it); at most
 * `maxConcurrentBuilds` builds at once with a bounded queue (then 503). Id
 * `test` is the generated test chart, without upstream. Every failure is a
 * JSON error body `{"error", "code"}` (extended.md §5.3) sent before any byte
 * of chart data -- never a partial binary.
 *
 * @module
 */

import { Hono } from "hono";
import { type Clock, SystemClock } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import { type Upstream, UpstreamError } from "../../upstream/mod.ts";
import { ArchiveReader } from "../archive_reader.ts";
import { encodeChartTo } from "../bincode/encode.ts";
import type { Chart, ChartInfo } from "../model/types.ts";
import { testChart } from "../model/test_chart.ts";
import { type ChartLimits, DEFAULT_LIMITS } from "../parse/limits.ts";
import { archiveFiles } from "./archive_files.ts";
import { type CacheEntry, cacheHash, DiskCache } from "./disk_cache.ts";
import { ChartHttpError, errorResponse, toHttpError } from "./http_errors.ts";
import { chartJson } from "./json.ts";
import { loadChart } from "./load.ts";

export { ChartHttpError, errorResponse } from "./http_errors.ts";

/** Default bound of the cache directory. */
export const DEFAULT_MAX_CACHE_BYTES = 2 * 1024 ** 3;
/** Builds running at once by default (each may hold a decoded song, ~64 MB for 3 minutes). */
export const DEFAULT_MAX_CONCURRENT_BUILDS = 2;
/** Requests waiting for a build slot before 503. */
export const DEFAULT_MAX_QUEUED_BUILDS = 16;
/** How long a chart that failed to build is answered from memory. */
const FAILURE_TTL_MS = 60_000;
const MAX_REMEMBERED_FAILURES = 256;

/** Options of {@link ChartService.open}. */
export interface ChartServiceOptions {
  upstream: Upstream;
  /** Directory of the cache (created). */
  cacheDir: string;
  clock?: Clock;
  logger?: Logger;
  maxCacheBytes?: number;
  maxConcurrentBuilds?: number;
  maxQueuedBuilds?: number;
  limits?: ChartLimits;
  /** Budget of the `/chart/{id}` metadata request (default 10 s). */
  metadataBudgetMs?: number;
}

type InMemory = { kind: "memory"; bin: Uint8Array[]; json: string };
type Built = { kind: "cached"; entry: CacheEntry } | InMemory;
type Resolved = Required<Omit<ChartServiceOptions, "logger">> & { logger: Logger | null };

/** The chart service; create with {@link ChartService.open}, mount with {@link ChartService.handle} or {@link ChartService.app}. */
export class ChartService {
  readonly #o: Resolved;
  readonly #cache: DiskCache;
  readonly #inflight = new Map<string, { hash: string; promise: Promise<Built> }>();
  readonly #failures = new Map<string, { at: number; error: ChartHttpError }>();
  #running = 0;
  readonly #queue: (() => void)[] = [];

  private constructor(o: Resolved, cache: DiskCache) {
    this.#o = o;
    this.#cache = cache;
  }

  /** Opens the cache directory and returns the service. */
  static async open(o: ChartServiceOptions): Promise<ChartService> {
    const clock = o.clock ?? new SystemClock();
    const full = {
      upstream: o.upstream,
      cacheDir: o.cacheDir,
      clock,
      logger: o.logger ?? null,
      maxCacheBytes: o.maxCacheBytes ?? DEFAULT_MAX_CACHE_BYTES,
      maxConcurrentBuilds: o.maxConcurrentBuilds ?? DEFAULT_MAX_CONCURRENT_BUILDS,
      maxQueuedBuilds: o.maxQueuedBuilds ?? DEFAULT_MAX_QUEUED_BUILDS,
      limits: o.limits ?? DEFAULT_LIMITS,
      metadataBudgetMs: o.metadataBudgetMs ?? 10_000,
    };
    return new ChartService(full, await DiskCache.open(o.cacheDir, full.maxCacheBytes, clock));
  }

  /** The cache (for statistics and tests). */
  get cache(): DiskCache {
    return this.#cache;
  }

  /** A Hono app answering `GET /chart/:file`; mount with `app.route("/", service.app())` or under a prefix. */
  app(): Hono {
    const app = new Hono();
    app.get("/chart/:file", (c) => this.serve(c.req.param("file")));
    return app;
  }

  /** Answers `GET .../chart/{id}[.json]` (any prefix); `null` for other requests. */
  async handle(req: Request): Promise<Response | null> {
    const m = /\/chart\/([^/]+)$/.exec(new URL(req.url).pathname);
    if (!m) return null;
    if (req.method !== "GET" && req.method !== "HEAD") return errorResponse(405, "only GET", { allow: "GET, HEAD" });
    let file: string;
    try {
      file = decodeURIComponent(m[1]!);
    } catch {
      return errorResponse(400, "invalid chart id: bad percent-encoding");
    }
    return await this.serve(file);
  }

  /** Answers for the last path segment `file`: `{id}` (bincode) or `{id}.json`. */
  async serve(file: string): Promise<Response> {
    const json = file.endsWith(".json");
    const id = json ? file.slice(0, -5) : file;
    try {
      if (id === "test") return this.#respond(this.#memory(testChart()), json);
      if (!/^[0-9]{1,10}$/.test(id) || Number(id) > 2 ** 31 - 1) {
        throw new ChartHttpError(400, `invalid chart id ${JSON.stringify(id.slice(0, 40))}: a number or "test"`);
      }
      const n = Number(id);
      const meta = await this.#metadata(n);
      if (!meta.file) throw new ChartHttpError(404, `chart ${n} has no file`);
      const key = meta.chartUpdated ?? meta.updated ?? "";
      const hash = await cacheHash(key);
      for (let attempt = 0;; attempt++) {
        const hit = this.#cache.get(id, hash);
        const built: Built = hit ? { kind: "cached", entry: hit } : await this.#build(id, hash, meta.file);
        try {
          return await this.#respond(built, json);
        } catch (e) {
          // Evicted between lookup and open: build again once.
          if (!(e instanceof Deno.errors.NotFound) || built.kind !== "cached" || attempt > 0) throw e;
          await this.#cache.forget(built.entry);
        }
      }
    } catch (e) {
      if (e instanceof ChartHttpError) {
        return errorResponse(e.status, e.message, e.status === 503 ? { "retry-after": "5" } : {});
      }
      this.#o.logger?.error("chart service failed", { chart: id, error: String(e) });
      return errorResponse(500, "internal error while serving the chart");
    }
  }

  #memory(built: { info: ChartInfo; chart: Chart }): InMemory {
    const bin: Uint8Array[] = [];
    encodeChartTo(built.info, built.chart, (c) => bin.push(c));
    return { kind: "memory", bin, json: JSON.stringify(chartJson(built.info, built.chart)) };
  }

  async #respond(b: Built, json: boolean): Promise<Response> {
    const type = json ? "application/json" : "application/octet-stream";
    if (b.kind === "memory") {
      const body = json ? new TextEncoder().encode(b.json) : b.bin;
      const size = json ? (body as Uint8Array).byteLength : b.bin.reduce((n, c) => n + c.byteLength, 0);
      const chunks = json ? [body as Uint8Array] : b.bin;
      let i = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(ctl) {
          if (i < chunks.length) ctl.enqueue(chunks[i++]!);
          else ctl.close();
        },
      });
      return new Response(stream, { headers: { "content-type": type, "content-length": String(size) } });
    }
    const path = json ? b.entry.jsonPath : b.entry.binPath;
    const f = await Deno.open(path, { read: true });
    const size = (await f.stat()).size;
    return new Response(f.readable, { headers: { "content-type": type, "content-length": String(size) } });
  }

  async #metadata(id: number) {
    try {
      return await this.#o.upstream.chart(id, { budgetMs: this.#o.metadataBudgetMs });
    } catch (e) {
      if (!(e instanceof UpstreamError)) throw e;
      if (e.kind === "http" && e.status === 404) throw new ChartHttpError(404, `chart ${id} not found`);
      throw new ChartHttpError(e.kind === "timeout" ? 504 : 502, `cannot fetch chart ${id} info: ${e.message}`);
    }
  }

  /** One build per chart id at a time: requests for the same version share it, a newer version waits for it. */
  async #build(id: string, hash: string, url: string): Promise<Built> {
    for (let cur = this.#inflight.get(id); cur; cur = this.#inflight.get(id)) {
      if (cur.hash === hash) return await cur.promise;
      await cur.promise.catch(() => {});
    }
    const hit = this.#cache.get(id, hash);
    if (hit) return { kind: "cached", entry: hit };
    const failed = this.#failures.get(`${id}.${hash}`);
    if (failed && this.#o.clock.now() - failed.at < FAILURE_TTL_MS) throw failed.error;
    const promise = this.#slot(() => this.#buildNow(id, hash, url)).finally(() => this.#inflight.delete(id));
    this.#inflight.set(id, { hash, promise });
    return await promise;
  }

  async #slot<T>(f: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#o.maxConcurrentBuilds) {
      if (this.#queue.length >= this.#o.maxQueuedBuilds) {
        throw new ChartHttpError(503, "too many charts are being built; try again shortly");
      }
      await new Promise<void>((r) => this.#queue.push(r));
    } else this.#running++;
    try {
      return await f();
    } finally {
      const next = this.#queue.shift();
      if (next) next(); // the slot passes on
      else this.#running--;
    }
  }

  async #buildNow(id: string, hash: string, url: string): Promise<Built> {
    const { clock, limits, upstream, logger } = this.#o;
    const started = clock.monotonic();
    const deadline = started + limits.buildBudgetMs;
    const check = () => {
      if (clock.monotonic() > deadline) {
        throw new ChartHttpError(504, `chart ${id} took over ${limits.buildBudgetMs} ms to build`);
      }
    };
    try {
      const reader = await ArchiveReader.open({
        upstream,
        url,
        clock,
        deadline,
        budgetMs: limits.buildBudgetMs,
        signal: undefined,
        maxDownloadBytes: limits.maxDownloadBytes,
      });
      const files = await archiveFiles(reader);
      const warn = (m: string) => logger?.warn("chart asset skipped", { chart: id, reason: m });
      const { info, chart } = await loadChart(files, { limits, check, warn });
      check();
      const built = this.#memory({ info, chart });
      let entry: CacheEntry | null = null;
      try {
        entry = await this.#cache.put(id, hash, built.bin, built.json);
      } catch (e) {
        // A full or read-only disk costs the cache, not the answer.
        logger?.warn("chart cache write failed", { chart: id, error: String(e) });
      }
      logger?.info("chart built", {
        chart: id,
        ms: Math.round(clock.monotonic() - started),
        bytes: reader.bytesDownloaded,
        lines: chart.lines.length,
        format: info.format,
      });
      return entry ? { kind: "cached", entry } : built;
    } catch (e) {
      const err = toHttpError(id, e);
      if (err.status === 422) {
        this.#failures.set(`${id}.${hash}`, { at: clock.now(), error: err });
        for (const k of this.#failures.keys()) {
          if (this.#failures.size <= MAX_REMEMBERED_FAILURES) break;
          this.#failures.delete(k);
        }
      }
      logger?.warn("chart build failed", { chart: id, status: err.status, reason: err.message });
      throw err;
    }
  }
}
