/**
 * What the operations need from the rest of the process. Everything beyond
 * the game server is optional: an operation whose subsystem is absent says
 * so (`UNAVAILABLE`) or answers from memory, and says which.
 *
 * @module
 */

import type { LoadedConfig } from "../config/mod.ts";
import type { RecordData } from "../protocol/mod.ts";
import type { GameServer, IpRecord } from "../server/mod.ts";
import type { LogHub } from "../util/log.ts";

/** A room visit of a user (`user-rooms`, spec 3 §2.2 "room history per user"). */
export interface RoomVisit {
  readonly room_id: string;
  readonly room_uuid: string | null;
  readonly monitor: boolean;
  /** Unix milliseconds. */
  readonly joined_at: number;
  /** Unix milliseconds; null while still inside (or when the process stopped first). */
  readonly left_at: number | null;
  /** `leave`, `disconnect`, `kick`, ... when known. */
  readonly leave_reason?: string | null;
}

/** A stored round (the durable store's `rounds` row). */
export interface StoredRound {
  readonly round_uuid: string;
  readonly room_id: string;
  readonly chart_id: number;
  readonly chart_name: string;
  /** Unix milliseconds. */
  readonly started_at: number;
  readonly finished_at: number | null;
  readonly aborted: readonly number[];
}

/** One stored batch of touches or judges (the store's `telemetry_batches` row). */
export interface StoredTelemetry {
  /** Journal sequence; batches ascend by it. */
  readonly seq: number;
  readonly room_id: string;
  readonly round_uuid: string | null;
  readonly player_id: number;
  readonly item_count: number;
  readonly items: readonly unknown[];
  /** Unix milliseconds of the first item and of the batch. */
  readonly first_at: number;
  readonly created_at: number;
}

/** A stored domain event (the store's `events` row). */
export interface StoredEvent {
  /** Journal sequence; events ascend by it. */
  readonly seq: number;
  readonly kind: string;
  readonly room_id: string | null;
  readonly user_id: number | null;
  readonly hidden: boolean;
  readonly payload: unknown;
  /** Unix milliseconds. */
  readonly created_at: number;
}

/** A saved snapshot of a persistent room. */
export interface StoredSnapshot {
  readonly room_id: string;
  readonly payload: unknown;
  readonly updated_at: number;
  readonly seq: number;
}

/** A stored benchmark report. */
export interface StoredBenchmark {
  readonly seq: number;
  readonly report_id: string;
  readonly title: string;
  readonly report: unknown;
  readonly created_at: number;
}

/** A journal record the store could not apply. */
export interface StoredDeadLetter {
  /** Journal sequence of the record. */
  readonly seq: number;
  /** The record as journaled (JSON text). */
  readonly body: string;
  readonly error: string;
  readonly attempts: number;
  /** Unix milliseconds. */
  readonly failed_at: number;
}

/**
 * What the console and OpenUDS read from the durable store (issue 5). The
 * persistence layer's `Persistence` object satisfies it as it is; absent in
 * memory-only mode, where operations answer from memory or say so.
 */
export interface PersistenceQueries {
  /** The `runtime persistence` report (plain JSON). */
  status(): object;
  /** Accumulated playtime of a user in milliseconds. */
  playtime(user: number): Promise<number>;
  /** Users with the most playtime. */
  topPlaytime(n: number): Promise<readonly { user_id: number; name: string | null; total_ms: number }[]>;
  /** `wal inspect` (plain JSON). */
  walInspect(limit?: number): Promise<object>;
  deadLetters(limit?: number): Promise<readonly StoredDeadLetter[]>;
  replayDeadLetters(): Promise<{
    readonly replayed: number;
    readonly failed: readonly { readonly seq: number; readonly error?: string }[];
  }>;
  readonly queries: {
    ipHistory(user: number): Promise<readonly IpRecord[]>;
    userRoomHistory(user: number, limit?: number): Promise<readonly RoomVisit[]>;
    roundsByRoom(room: string, limit?: number): Promise<readonly StoredRound[]>;
    round(uuid: string): Promise<StoredRound | null>;
    roundResults(uuid: string): Promise<readonly { readonly record: RecordData }[]>;
    telemetry(
      kind: "touches" | "judges",
      filter?: { since?: number; limit?: number; round?: string; player?: number },
    ): Promise<readonly StoredTelemetry[]>;
    events(filter?: { since?: number; limit?: number; kind?: string; room?: string; user?: number }): Promise<
      readonly StoredEvent[]
    >;
    roomSnapshots(since?: number, limit?: number): Promise<readonly StoredSnapshot[]>;
    benchmarkReports(limit?: number): Promise<readonly StoredBenchmark[]>;
    /** A user who ever logged in, with the name they last used. */
    user(id: number): Promise<{ readonly user_id: number; readonly name: string } | null>;
    /** Players who ever logged in. */
    totalPlayers(): Promise<number>;
  };
}

/**
 * The in-process benchmark (spec 3 §4.2 `benchmark`, §4.9 `test.run_benchmark`),
 * provided by `src/load` and injected by the process: it owns its argument
 * grammar, so the operations layer passes the words through.
 */
export interface BenchmarkRunner {
  /** The grammar of the `run` form, for help and errors. */
  readonly usage: string;
  /** Parses the console words (`run fixed --duration 10m`, `30 100`); throws a RangeError reading `Cannot ...`. */
  parse(words: readonly string[]): unknown;
  /** One line saying what will run. */
  describe(plan: unknown): string;
  /** Runs one benchmark; rejects with a code `BUSY` (one is running) or `STOPPING` error, else resolves with the report. */
  run(plan: unknown): Promise<{ readonly lines: readonly string[]; readonly report?: unknown }>;
}

/** What `approve openuds` needs from the local socket (see `src/uds/approvals.ts`). */
export interface ApprovalQueue {
  /** Approves a waiting client. */
  approve(pendingId: string): "approved" | "unknown" | "expired";
  /** Clients waiting for approval. */
  pending(): readonly { readonly pending_id: string; readonly client_name: string; readonly expires_at: number }[];
}

/** Where the configuration comes from (`check-config`, `config reload`). */
export interface ConfigAccess {
  /** The configuration the process started with. */
  readonly initial: LoadedConfig;
  /** Reads and validates the configuration again (file, environment, flags); throws `ConfigError`. */
  load(): Promise<LoadedConfig>;
}

/** Dependencies of `createOps`. */
export interface OpsDeps {
  readonly server: GameServer;
  /** Requests a graceful shutdown (`server.shutdown`: console `exit`, OpenUDS); absent = `UNAVAILABLE`. */
  readonly shutdown?: (reason: string) => void;
  /** Log history and level (`config reload` applies `log_level`). */
  readonly logs?: LogHub;
  readonly config?: ConfigAccess;
  /** Read at each `approve openuds`: absent or `undefined` while OpenUDS approval mode is not running. */
  readonly approvals?: ApprovalQueue | undefined;
  readonly persistence?: PersistenceQueries;
  /** Database schema version for `runtime` (the persistence layer's `SCHEMA_VERSION`). */
  readonly schemaVersion?: number;
  readonly benchmark?: BenchmarkRunner;
  /** Process start (Unix ms) for uptime; defaults to when the registry was made. */
  readonly startedAt?: number;
  /** Server version string (default: `deno.json` version). */
  readonly version?: string;
}
