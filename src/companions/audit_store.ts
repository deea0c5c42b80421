/**
 * The `command` service's audit log (issue 21: every request, accepted or
 * refused): when, from where, what was asked, what came of it. Never a
 * password fragment. Rows older than `audit_retention_days` are pruned.
 *
 * @module
 */

import { type Db, dbNum, migrate, type Migration } from "../db/mod.ts";

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE companion_command_audit (
        id {{id}},
        at BIGINT NOT NULL,
        ip TEXT NOT NULL,
        outcome TEXT NOT NULL,
        alias TEXT,
        command TEXT,
        exit_code INTEGER,
        duration_ms INTEGER,
        detail TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX companion_command_audit_at ON companion_command_audit (at);
    `,
  },
];

/** Migrates the audit table. */
export async function migrateAudit(db: Db): Promise<void> {
  await migrate(db, "companions_audit", MIGRATIONS);
}

/** Outcomes of a request. */
export type AuditOutcome =
  | "ok"
  | "failed"
  | "timeout"
  | "refused_auth"
  | "refused_locked"
  | "refused_command"
  | "refused_busy"
  | "refused_unconfigured"
  | "error";

/** One audit entry. */
export interface AuditEntry {
  readonly at: number;
  readonly ip: string;
  readonly outcome: AuditOutcome;
  readonly alias: string | null;
  readonly command: string | null;
  readonly exitCode: number | null;
  readonly durationMs: number | null;
  readonly detail: string;
}

/** Longest text stored per column. */
const MAX_TEXT = 2000;

/** The audit log. */
export class AuditStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Appends an entry. */
  async record(e: AuditEntry): Promise<void> {
    await this.#db.query(
      `INSERT INTO companion_command_audit (at, ip, outcome, alias, command, exit_code, duration_ms, detail)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        e.at,
        e.ip.slice(0, 100),
        e.outcome,
        e.alias?.slice(0, 100) ?? null,
        e.command?.slice(0, MAX_TEXT) ?? null,
        e.exitCode,
        e.durationMs,
        e.detail.slice(0, MAX_TEXT),
      ],
    );
  }

  /** The newest `limit` entries, newest first. */
  async recent(limit = 100): Promise<AuditEntry[]> {
    const rows = await this.#db.query(
      "SELECT at, ip, outcome, alias, command, exit_code, duration_ms, detail FROM companion_command_audit ORDER BY id DESC LIMIT $1",
      [limit],
    );
    return rows.map((r) => ({
      at: dbNum(r.at),
      ip: String(r.ip),
      outcome: r.outcome as AuditOutcome,
      alias: r.alias === null ? null : String(r.alias),
      command: r.command === null ? null : String(r.command),
      exitCode: r.exit_code === null ? null : dbNum(r.exit_code),
      durationMs: r.duration_ms === null ? null : dbNum(r.duration_ms),
      detail: String(r.detail),
    }));
  }

  /** Deletes entries older than `before`. */
  async prune(before: number): Promise<void> {
    await this.#db.query("DELETE FROM companion_command_audit WHERE at < $1", [before]);
  }
}
