/**
 * The journal's record vocabulary (issue 5 "What is durable"): every durable
 * write is one of these JSON bodies, appended to the journal with a global
 * sequence number and applied to the store by the worker. Nothing else ever
 * reaches the database except retention and recovery maintenance.
 *
 * @module
 */

import type { DomainEvent } from "../events/mod.ts";
import { describeError } from "./error_text.ts";
import type { TelemetrySegmentsEntry } from "./telemetry/segment_types.ts";

export type { TelemetrySegment, TelemetrySegmentsEntry } from "./telemetry/segment_types.ts";

/** Login category, as recorded in visits (spec 3 §3.2). */
export type LoginCategory = "normal" | "console" | "room-monitor" | "game-monitor";

/** A login, journaled before `Authenticate(Ok)` is sent (spec 3 §3.2). */
export interface LoginEntry {
  readonly t: "login";
  readonly user: number;
  readonly name: string;
  readonly language: string;
  readonly ip: string;
  readonly session: number;
  readonly category: LoginCategory;
  readonly at: number;
  /** Server instance that accepted the login. */
  readonly instance: string;
}

/**
 * Compensation of a journaled login that never became Active (spec 3 §3.2
 * rollback: its socket closed before the reply was flushed, or the journal
 * flush failed). Applying it takes back what its login record added: the
 * visit (matched by instance and session), one login of the user and one use
 * of the address; a user row left with no login is deleted, so the refused
 * login never counts as a player.
 */
export interface LoginRevokedEntry {
  readonly t: "login.revoked";
  readonly user: number;
  readonly ip: string;
  readonly session: number;
  /** Server instance that journaled the login. */
  readonly instance: string;
  readonly reason: string;
  readonly at: number;
}

/** A domain event without its process-local bus sequence (spec 3 §2.2 "domain events"). */
export type StoredEvent = DomainEvent extends infer E ? E extends DomainEvent ? Omit<E, "seq"> : never : never;

/** A domain event for the events table and the tables derived from it. */
export interface EventEntry {
  readonly t: "event";
  readonly e: StoredEvent;
}

/** Playtime accumulated since the last flush, per user, in milliseconds. */
export interface PlaytimeEntry {
  readonly t: "playtime";
  readonly at: number;
  readonly deltas: readonly (readonly [user: number, ms: number])[];
}

/** One batch of touches or judges of one player (spec 3 §8: 256 items or 500 ms). */
export interface TelemetryBatch {
  readonly kind: "touches" | "judges";
  readonly room: string;
  readonly round: string | null;
  readonly user: number;
  readonly items: readonly unknown[];
  readonly first_at: number;
  readonly last_at: number;
}

/** One batch as its own record: what journals written before bundles hold (still applied). */
export interface TelemetryEntry extends TelemetryBatch {
  readonly t: "telemetry";
}

/**
 * Every batch cut in one flush tick, as one record (BENCHMARKS.md
 * "Persistence / Telemetry"). A bundle of k batches takes k sequences: the
 * record's sequence S is the last, and batch i (from 0) is stored with
 * sequence S - k + 1 + i, so each `telemetry_batches` row keeps a global
 * sequence of its own, as when every batch was a record.
 */
export interface TelemetryBundleEntry {
  readonly t: "telemetry.bundle";
  readonly batches: readonly TelemetryBatch[];
}

/** A room snapshot; `payload: null` deletes it. */
export interface SnapshotEntry {
  readonly t: "snapshot";
  readonly room: string;
  readonly payload: unknown;
  readonly at: number;
}

/** A ban or unban, by user id or by address. */
export type BanEntry =
  | { readonly t: "ban.user"; readonly user: number; readonly reason: string; readonly at: number }
  | { readonly t: "unban.user"; readonly user: number; readonly at: number }
  | { readonly t: "ban.ip"; readonly ip: string; readonly reason: string; readonly at: number }
  | { readonly t: "unban.ip"; readonly ip: string; readonly at: number };

/** A setting; `value: null` deletes it. */
export interface SettingEntry {
  readonly t: "setting";
  readonly key: string;
  readonly value: unknown;
  readonly at: number;
}

/** A stored benchmark report. */
export interface BenchmarkEntry {
  readonly t: "benchmark";
  readonly id: string;
  readonly title: string;
  readonly report: unknown;
  readonly at: number;
}

/** A server instance start, heartbeat (every 30 s) or stop. */
export interface InstanceEntry {
  readonly t: "instance";
  readonly id: string;
  readonly pid: number;
  readonly host: string;
  readonly started_at: number;
  readonly at: number;
  readonly stopped: boolean;
}

/** Changes of the authentication cache since the last save: token hashes only, never tokens. */
export interface AuthCacheEntry {
  readonly t: "auth";
  readonly set: readonly (readonly [hash: string, user: number, name: string, language: string, cachedAt: number])[];
  readonly del: readonly string[];
}

/** The retention policies in force (written when they change). */
export interface RetentionEntry {
  readonly t: "retention";
  readonly policies: readonly RetentionPolicy[];
  readonly at: number;
}

/** Rounds left unfinished by an earlier instance are marked interrupted at startup. */
export interface InterruptedRoundsEntry {
  readonly t: "rounds.interrupted";
  readonly before: number;
  readonly at: number;
}

/** Any journal record body. */
export type JournalEntry =
  | LoginEntry
  | LoginRevokedEntry
  | EventEntry
  | PlaytimeEntry
  | TelemetryEntry
  | TelemetryBundleEntry
  | TelemetrySegmentsEntry
  | SnapshotEntry
  | BanEntry
  | SettingEntry
  | BenchmarkEntry
  | InstanceEntry
  | AuthCacheEntry
  | RetentionEntry
  | InterruptedRoundsEntry;

/** Sequences a record takes: one, or one per batch of a telemetry bundle or segment record (at least one). */
export function entrySpan(entry: JournalEntry): number {
  if (entry.t === "telemetry.bundle") return Math.max(1, entry.batches.length);
  if (entry.t === "telemetry.segments") return Math.max(1, entry.segments.length);
  return 1;
}

/** A journal record: its global sequence (the last of its span) and body. */
export interface SeqEntry {
  readonly seq: number;
  readonly entry: JournalEntry;
  /** The record's JSON as journaled, when at hand (lets a bundle's rows be unpacked by the database). */
  readonly body?: string | null;
}

/** Retention of one table (spec 3 §2.3 `table_retention`). */
export interface RetentionPolicy {
  readonly table: string;
  readonly time_col: string;
  readonly days: number | null;
  readonly max_rows: number | null;
}

/** Error codes of the persistence boundary. */
export type PersistenceErrorCode =
  | "data_dir"
  | "locked"
  | "journal_identity"
  | "journal_corrupt"
  | "journal_write"
  | "schema_newer"
  | "migration_failed"
  | "database"
  | "recovery_timeout"
  | "closed";

/** The one error class of the persistence boundary; messages read `Cannot <action>: <reason>`. */
export class PersistenceError extends Error {
  readonly code: PersistenceErrorCode;
  constructor(code: PersistenceErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PersistenceError";
    this.code = code;
  }
}

/** A short text for any thrown value (never includes secrets: callers pass no URLs); see `error_text.ts`. */
export function errorText(error: unknown): string {
  return describeError(error);
}
