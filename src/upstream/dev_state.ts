/**
 * Mutable state of one development upstream: registered accounts, chart
 * overrides, stored records, injected faults and a bounded request log.
 * Tokens given to {@link DevApiState.addUser} are kept in memory only and
 * never appear in the log.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { AudioSpec } from "./dev_audio.ts";
import { buildChartArchive, type ChartArchive, defaultDevChart, type DevChart, isDevChartId } from "./dev_charts.ts";
import {
  completeUpload,
  deterministicRecord,
  DEV_UPLOAD_ID_BASE,
  type DevRecord,
  type uploadSchema,
} from "./dev_records.ts";
import { type DevProfile, type DevUser, type DevUserInit, DevUsers } from "./dev_users.ts";
import type * as z from "../util/zod.ts";

export type { DevProfile, DevUser, DevUserInit } from "./dev_users.ts";

/** Endpoints faults can target. */
export type DevEndpoint = "me" | "user" | "chart" | "record" | "login" | "upload" | "files";

/** An injected fault: applies to the next `times` requests of an endpoint (default: all). */
export interface DevFault {
  /** Answer with this status (and `body`, default `{"error": "injected fault"}`) instead of the real reply. */
  status?: number;
  /** JSON body of the injected answer (status 200 when `status` is absent): for malformed-response tests. */
  body?: unknown;
  /** Wait this long (on the injected clock) before answering. */
  delayMs?: number;
  /** Called first; a returned response is sent as is, otherwise handling continues. */
  hook?: (req: Request) => Response | undefined | Promise<Response | undefined>;
  /** How many requests the fault affects (default: unlimited). */
  times?: number;
}

/** One logged request (no credentials: only whether a bearer header was present). */
export interface DevRequestLog {
  at: number;
  method: string;
  path: string;
  endpoint: DevEndpoint | null;
  bearer: boolean;
  range: string | null;
  status: number;
}

/** Fields of {@link DevApiState.addChart}; missing ones come from the id's defaults. */
export type DevChartInit = Partial<Omit<DevChart, "audio">> & { id: number; audio?: Partial<AudioSpec> };

/** Construction options of {@link DevApiState}. */
export interface DevApiStateOptions {
  clock: Clock;
  /** Serve every archive with `200`, ignoring `Range` (default false). */
  ignoreRange?: boolean;
  /** Request log length (default 1000). */
  maxLogEntries?: number;
  /** Bytes of built archives kept (default 64 MiB). */
  archiveCacheBytes?: number;
  /** Stored records kept (default 100,000; oldest dropped first). */
  maxRecords?: number;
}

/** State behind a development API; tests reach it as `api.state`. */
export class DevApiState {
  /** Serve every archive ignoring `Range`. */
  ignoreRange: boolean;
  readonly #clock: Clock;
  readonly #log: DevRequestLog[] = [];
  readonly #maxLog: number;
  readonly #users = new DevUsers();
  readonly #faults = new Map<DevEndpoint, DevFault>();
  readonly #charts = new Map<number, DevChart>();
  readonly #archives = new Map<number, ChartArchive>();
  #archiveBytes = 0;
  readonly #archiveCap: number;
  readonly #records = new Map<number, DevRecord>();
  readonly #maxRecords: number;
  #nextRecordId = DEV_UPLOAD_ID_BASE;

  /** Empty state: only deterministic accounts, charts and records. */
  constructor(o: DevApiStateOptions) {
    this.#clock = o.clock;
    this.ignoreRange = o.ignoreRange ?? false;
    this.#maxLog = o.maxLogEntries ?? 1000;
    this.#archiveCap = o.archiveCacheBytes ?? 64 << 20;
    this.#maxRecords = o.maxRecords ?? 100_000;
  }

  /** The most recent requests, oldest first (a copy). */
  get requests(): DevRequestLog[] {
    return [...this.#log];
  }

  /** Appends to the bounded request log. */
  log(entry: DevRequestLog): void {
    this.#log.push(entry);
    if (this.#log.length > this.#maxLog) this.#log.splice(0, this.#log.length - this.#maxLog);
  }

  /** Forgets the request log. */
  clearRequests(): void {
    this.#log.length = 0;
  }

  /** Registers (or replaces) an account; returns its dev token `devToken(id, language)`. */
  addUser(init: DevUserInit): string {
    return this.#users.add(init);
  }

  /** The account behind a token, or `null` (unknown or malformed token). */
  userForToken(token: string): DevUser | null {
    return this.#users.forToken(token);
  }

  /** The public profile of game account `id` (`GET /user/{id}`), or `null`. */
  profile(id: number): DevProfile | null {
    return this.#users.profile(id);
  }

  /** Public profiles whose name contains `text` (`GET /user?search=`). */
  searchProfiles(text: string): DevProfile[] {
    return this.#users.search(text);
  }

  /** Makes game account `id` unknown to `/user/{id}` and searches (it still logs in). */
  hideUser(id: number): void {
    this.#users.hide(id);
  }

  /** Checks credentials; returns the account and its token, or `null`. */
  login(email: string, password: string): { user: DevUser; token: string } | null {
    return this.#users.login(email, password);
  }

  /** Injects a fault into an endpoint (replacing an earlier one). */
  setFault(endpoint: DevEndpoint, fault: DevFault): void {
    this.#faults.set(endpoint, { ...fault });
  }

  /** Removes every injected fault. */
  clearFaults(): void {
    this.#faults.clear();
  }

  /** The fault to apply to one request of `endpoint`, counting it against `times`. */
  takeFault(endpoint: DevEndpoint): DevFault | null {
    const f = this.#faults.get(endpoint);
    if (!f) return null;
    if (f.times !== undefined) {
      if (f.times <= 1) this.#faults.delete(endpoint);
      else f.times--;
    }
    return f;
  }

  /** Registers or overrides a chart (any positive i32 id); returns the full definition. */
  addChart(init: DevChartInit): DevChart {
    const base = this.#charts.get(init.id) ?? defaultDevChart(init.id);
    const chart: DevChart = { ...base, ...init, audio: { ...base.audio, ...init.audio } };
    this.#charts.set(init.id, chart);
    this.#dropArchive(init.id);
    return chart;
  }

  /** The chart `id` serves, or `null` when unknown. */
  chart(id: number): DevChart | null {
    return this.#charts.get(id) ?? (isDevChartId(id) ? defaultDevChart(id) : null);
  }

  /** The archive of chart `id` (built once, kept in a bounded cache), or `null`. */
  archive(id: number): ChartArchive | null {
    const cached = this.#archives.get(id);
    if (cached) {
      this.#archives.delete(id);
      this.#archives.set(id, cached);
      return cached;
    }
    const chart = this.chart(id);
    if (!chart) return null;
    const built = buildChartArchive(chart);
    this.#archives.set(id, built);
    this.#archiveBytes += built.bytes.byteLength;
    for (const [old] of this.#archives) {
      if (this.#archiveBytes <= this.#archiveCap || old === id) break;
      this.#dropArchive(old);
    }
    return built;
  }

  #dropArchive(id: number): void {
    const a = this.#archives.get(id);
    if (!a) return;
    this.#archives.delete(id);
    this.#archiveBytes -= a.bytes.byteLength;
  }

  /** Stores a record for `player` (id allocated unless given); returns it. */
  addRecord(init: Partial<DevRecord> & { player: number }): DevRecord {
    const id = init.id ?? this.#nextRecordId++;
    const base = completeUpload(init, id, init.player, this.#clock.now());
    const record: DevRecord = { ...base, ...init, id };
    this.#store(record);
    return record;
  }

  /** Stores an upload of `player`; returns the record with its new id. */
  upload(player: number, body: z.output<typeof uploadSchema>): DevRecord {
    const record = completeUpload(body, this.#nextRecordId++, player, this.#clock.now());
    this.#store(record);
    return record;
  }

  #store(record: DevRecord): void {
    this.#records.delete(record.id);
    this.#records.set(record.id, record);
    for (const [old] of this.#records) {
      if (this.#records.size <= this.#maxRecords) break;
      this.#records.delete(old);
    }
  }

  /** The record `id` serves: a stored one, else the deterministic one, else `null`. */
  record(id: number): DevRecord | null {
    return this.#records.get(id) ?? deterministicRecord(id);
  }
}
