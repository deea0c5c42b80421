/**
 * Typed client of the upstream Phira API (protocol.md §6): `/me`,
 * `/user/{id}`, `/chart/{id}`, `/record/{id}`, `/login` and ranged chart downloads, with
 * per-attempt timeouts and budgeted retries (spec 3 §5 rule 1).
 *
 * The upstream itself has no timeout and no retry (protocol.md §6); ours do.
 * Tokens and passwords travel only in headers and bodies and never appear in
 * an error message or statistic.
 *
 * @module
 */

import type * as z from "../util/zod.ts";
import { type Clock, SystemClock } from "../util/clock.ts";
import { ConcurrencyLimit } from "../util/concurrency_limit.ts";
import { type Random, systemRandom } from "../util/random.ts";
import { call, type CallContext, type CallOptions } from "./call.ts";
import type { UpstreamEndpoint } from "./errors.ts";
import { rangeHeader, type RangeRequest, RangeResponseError, type RangeResult, readRange } from "./range.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.ts";
import {
  accountSchema,
  chartSchema,
  describeIssues,
  loginSchema,
  profilePageSchema,
  profileSchema,
  recordSchema,
  toAccount,
  toChart,
  toProfile,
  toRecord,
  type UpstreamAccount,
  type UpstreamChart,
  type UpstreamLogin,
  type UpstreamProfile,
  type UpstreamProfilePage,
  type UpstreamRecord,
  type UpstreamUser,
  userSchema,
} from "./schemas.ts";
import { StatsRecorder, type UpstreamStats } from "./stats.ts";
import { type FetchLike, readBody } from "./transport.ts";

export type { CallOptions } from "./call.ts";

/**
 * Upstream requests in flight at most, per process (all base URLs together; issue 15). `fetch` opens a connection
 * whenever none is idle and keeps each for 90 s: a round ending in 300 rooms asked for 2,400 records at once and left
 * 2,400 idle connections to the API in the server. The others wait their turn, in order, inside their attempt's
 * deadline.
 */
export const DEFAULT_MAX_CONCURRENT = 64;

/** The official API (protocol.md §6); config key `game_api_endpoint`. */
export const DEFAULT_GAME_API_ENDPOINT = "https://phira.5wyxi.com";

/** Construction options of {@link Upstream}. */
export interface UpstreamOptions {
  /** API base URL, for example {@link DEFAULT_GAME_API_ENDPOINT}. */
  baseUrl: string;
  /** HTTP implementation (default: global `fetch`); tests inject a dev API's `fetch`. */
  fetch?: FetchLike;
  /** Time source for timeouts and backoff (default: {@link SystemClock}). */
  clock?: Clock;
  /** Jitter source (default: `Math.random`). */
  random?: Random;
  /** Upper bound of one attempt in milliseconds (default 5000). */
  attemptTimeoutMs?: number;
  /** Overrides of the retry policy. */
  retry?: Partial<RetryPolicy>;
  /** `User-Agent` header (default `chorus`). */
  userAgent?: string;
  /** Largest JSON body accepted, bytes (default 1 MiB). */
  maxJsonBytes?: number;
  /** Largest body read by one ranged download, also when a server ignores `Range` (default 32 MiB). */
  maxDownloadBytes?: number;
  /** Requests in flight at once; the rest wait in order (default {@link DEFAULT_MAX_CONCURRENT}). */
  maxConcurrent?: number;
}

interface Shared extends CallContext {
  maxJsonBytes: number;
  maxDownloadBytes: number;
}

/** Upstream Phira API client. Stateless apart from statistics; share one per process. */
export class Upstream {
  /** Base URL without a trailing slash. */
  readonly baseUrl: string;
  #s: Shared;

  /** A client of the API at `o.baseUrl`. */
  constructor(o: UpstreamOptions) {
    this.baseUrl = trimBase(o.baseUrl);
    const policy = { ...DEFAULT_RETRY_POLICY, ...o.retry };
    if (o.attemptTimeoutMs !== undefined) policy.attemptTimeoutMs = o.attemptTimeoutMs;
    this.#s = {
      fetch: o.fetch ?? ((input, init) => fetch(input, init)),
      clock: o.clock ?? new SystemClock(),
      random: o.random ?? systemRandom,
      policy,
      userAgent: o.userAgent ?? "chorus",
      maxJsonBytes: o.maxJsonBytes ?? 1 << 20,
      maxDownloadBytes: o.maxDownloadBytes ?? 32 << 20,
      stats: new StatsRecorder(),
      slots: new ConcurrencyLimit(o.maxConcurrent ?? DEFAULT_MAX_CONCURRENT),
    };
  }

  /** A client for another base URL (a room's `game_api_endpoint` override) sharing options and statistics. */
  withBaseUrl(url: string): Upstream {
    const copy = new Upstream({ baseUrl: url });
    copy.#s = this.#s;
    return copy;
  }

  /** `GET /me`: the account behind `token`. A `401` means the token is invalid (not retried). */
  me(token: string, o: CallOptions = {}): Promise<UpstreamUser> {
    const headers = { authorization: `Bearer ${token}` };
    return this.#json("me", "Cannot fetch user info", "/me", { headers }, userSchema, (u) => u, o);
  }

  /** `GET /me` read for its profile fields (avatar, rks, times); a `401` means the token is invalid. */
  profile(token: string, o: CallOptions = {}): Promise<UpstreamAccount> {
    const headers = { authorization: `Bearer ${token}` };
    return this.#json("me", "Cannot fetch the profile", "/me", { headers }, accountSchema, toAccount, o);
  }

  /** `GET /chart/{id}`: chart metadata. */
  chart(id: number, o: CallOptions = {}): Promise<UpstreamChart> {
    return this.#json("chart", `Cannot fetch chart ${id}`, `/chart/${id}`, {}, chartSchema, toChart, o);
  }

  /** `GET /record/{id}`: a play record; `std`/`std_score` may be `null`. */
  record(id: number, o: CallOptions = {}): Promise<UpstreamRecord> {
    return this.#json("record", `Cannot fetch record ${id}`, `/record/${id}`, {}, recordSchema, toRecord, o);
  }

  /** `GET /user/{id}`: a public game account -- name, avatar, rks; no token needed (`404` when there is none; not retried). */
  user(id: number, o: CallOptions = {}): Promise<UpstreamProfile> {
    return this.#json("user", `Cannot fetch game user ${id}`, `/user/${id}`, {}, profileSchema, toProfile, o);
  }

  /** `GET /user?search=<text>&page=1&pageNum=<n>`: the first page of game accounts whose name matches `text`. */
  searchUsers(text: string, pageSize = 20, o: CallOptions = {}): Promise<UpstreamProfilePage> {
    const query = new URLSearchParams({ search: text, page: "1", pageNum: String(pageSize) });
    const convert = (p: z.output<typeof profilePageSchema>) => ({ count: p.count, results: p.results.map(toProfile) });
    return this.#json("user_search", "Cannot search game users", `/user?${query}`, {}, profilePageSchema, convert, o);
  }

  /** `POST /login` with e-mail and password. */
  login(email: string, password: string, o: CallOptions = {}): Promise<UpstreamLogin> {
    const init = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    };
    const convert = (l: z.output<typeof loginSchema>): UpstreamLogin => {
      const out: UpstreamLogin = { id: l.id, token: l.token };
      if (l.refreshToken !== undefined) out.refreshToken = l.refreshToken;
      if (l.expireAt !== undefined) out.expireAt = l.expireAt;
      return out;
    };
    return this.#json("login", "Cannot log in", "/login", init, loginSchema, convert, o);
  }

  /** Reads bytes `start..endInclusive` of an absolute `url` (a chart's `file`). */
  fetchRange(url: string, start: number, endInclusive: number, o: CallOptions = {}): Promise<RangeResult> {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(endInclusive) || start < 0 || endInclusive < start) {
      return Promise.reject(new RangeError(`Cannot read range ${start}-${endInclusive}: invalid byte range`));
    }
    return this.#download(url, { kind: "range", start, end: endInclusive }, o);
  }

  /** Reads the last `length` bytes of an absolute `url` (`Range: bytes=-N`), for zip central directories. */
  fetchTail(url: string, length: number, o: CallOptions = {}): Promise<RangeResult> {
    if (!Number.isSafeInteger(length) || length <= 0) {
      return Promise.reject(new RangeError(`Cannot read the last ${length} bytes: length must be a positive integer`));
    }
    return this.#download(url, { kind: "tail", length }, o);
  }

  /** Requests in flight now, waiting for a slot, and the limit (shared with {@link Upstream.withBaseUrl} copies). */
  requests(): { in_flight: number; waiting: number; limit: number } {
    const slots = this.#s.slots;
    return { in_flight: slots.busy, waiting: slots.waiting, limit: slots.limit };
  }

  /** Per-endpoint statistics as plain JSON (shared with {@link Upstream.withBaseUrl} copies). */
  stats(): UpstreamStats {
    return this.#s.stats.snapshot();
  }

  #json<S extends z.ZodMiniType, T>(
    endpoint: UpstreamEndpoint,
    action: string,
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string },
    schema: S,
    convert: (v: z.output<S>) => T,
    o: CallOptions,
  ): Promise<T> {
    const url = this.baseUrl + path;
    const headers = { accept: "application/json", ...init.headers };
    return call(this.#s, { endpoint, action, url, init: { ...init, headers } }, o, async (res, attempt, fail) => {
      const body = await readBody(attempt, res, this.#s.maxJsonBytes + 1);
      if (!body.complete) throw fail("invalid_response", `invalid response: body over ${this.#s.maxJsonBytes} bytes`);
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder().decode(body.bytes));
      } catch {
        throw fail("invalid_response", "invalid response: not JSON");
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) throw fail("invalid_response", `invalid response: ${describeIssues(parsed.error)}`);
      return convert(parsed.data);
    });
  }

  #download(url: string, req: RangeRequest, o: CallOptions): Promise<RangeResult> {
    const headers = { range: rangeHeader(req), "accept-encoding": "identity" };
    const action = `Cannot download ${url}`;
    return call(this.#s, { endpoint: "download", action, url, init: { headers } }, o, async (res, attempt, fail) => {
      try {
        return await readRange(attempt, res, req, this.#s.maxDownloadBytes);
      } catch (e) {
        if (e instanceof RangeResponseError) throw fail("invalid_response", `invalid response: ${e.message}`);
        throw e;
      }
    });
  }
}

function trimBase(url: string): string {
  return url.replace(/\/+$/, "");
}
