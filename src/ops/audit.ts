/**
 * The audit log of the operations layer: every call of an operation that
 * changes state -- allowed or refused -- with who, when, the arguments and
 * the outcome. Bounded (the oldest entries go first); read with the
 * `audit.list` operation and mirrored as `operation` log lines.
 *
 * @module
 */

/** One audited call. */
export interface AuditEntry {
  readonly seq: number;
  /** Unix milliseconds. */
  readonly time: number;
  /** `console`, `in-game`, `openuds`, `http-admin`, `plugin`. */
  readonly source: string;
  /** Who within the source: `console`, the game user id, the OpenUDS session, the address, the plugin id. */
  readonly actor: string;
  /** The operation's name (not the alias it was called by). */
  readonly op: string;
  /** The validated arguments (long strings clipped), or the raw ones when validation failed. */
  readonly args: unknown;
  readonly ok: boolean;
  /** Error code and message when it failed. */
  readonly code: string | null;
  readonly message: string | null;
}

/** Longest string kept in an audited argument. */
const MAX_STRING = 256;

/** A copy of `value` with long strings clipped and depth bounded, so one entry stays small. */
function clip(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}\u2026` : value;
  if (value === null || typeof value !== "object") return value;
  if (depth >= 4) return "\u2026";
  if (Array.isArray(value)) return value.slice(0, 64).map((v) => clip(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).slice(0, 64)) out[k] = clip(v, depth + 1);
  return out;
}

/** A ring of the most recent audited calls. */
export class AuditLog {
  readonly capacity: number;
  #items: AuditEntry[] = [];
  #seq = 0;

  constructor(capacity = 1000) {
    this.capacity = Math.max(1, capacity);
  }

  /** Records one call; returns the entry. */
  record(entry: Omit<AuditEntry, "seq" | "args"> & { readonly args: unknown }): AuditEntry {
    const full: AuditEntry = { ...entry, seq: ++this.#seq, args: clip(entry.args) };
    this.#items.push(full);
    if (this.#items.length > this.capacity) this.#items.splice(0, this.#items.length - this.capacity);
    return full;
  }

  /** The last `limit` entries, oldest first. */
  recent(limit: number): AuditEntry[] {
    return limit > 0 ? this.#items.slice(-limit) : [];
  }
}
