/**
 * How journal recovery speaks (`recovery.ts`): the sequences a
 * damaged stretch holds, the refusal message with what the operator can
 * do, and a bound on log lines when damage is widespread.
 *
 * @module
 */

import type { Logger } from "../../util/log.ts";
import type { Damaged, Finding } from "./scan.ts";
import { PersistenceError } from "../types.ts";

/** Most finding lines logged per message; the rest are counted in one line. */
const LOG_LINES = 20;

/** The sequences a damaged stretch may hold, as text. */
export function seqText(f: Damaged): string {
  const hi = f.hi ?? Infinity;
  if (f.seq !== null && f.lo >= f.seq) return `${f.seq}`;
  if (f.seq !== null) return `${f.seq} (and any of ${f.lo}\u2013${f.seq - 1} it spans)`;
  if (f.lo > hi) return "none";
  if (hi === Infinity) return `${f.lo} and later`;
  return f.lo === hi ? `${f.lo}` : `${f.lo}\u2013${hi}`;
}

/** One line of the refusal message: where the damage is and which sequences it holds. */
export function describe(path: string, f: Exclude<Finding, { kind: "repaired" | "duplicate" }>): string {
  if (f.kind === "conflict") return `"${path}" byte ${f.offset}: the record with sequence ${f.seq} (${f.why})`;
  return `"${path}" bytes ${f.start}\u2013${f.end} (${f.why}): sequence${f.lo === f.hi ? "" : "s"} ${seqText(f)}`;
}

/** The refusal of a start: the damaged records (at most ten listed) and what the operator can do. */
export function refuse(dir: string, appliedSeq: number, refusals: string[]): PersistenceError {
  const shown = refusals.slice(0, 10).map((r) => `  - ${r}`);
  if (refusals.length > 10) shown.push(`  - and ${refusals.length - 10} more`);
  return new PersistenceError(
    "journal_corrupt",
    `Cannot recover the journal in "${dir}": it is damaged where it holds records the database does not have ` +
      `(applied through sequence ${appliedSeq}):\n${shown.join("\n")}\n` +
      `Nothing was changed. Restore these files from a backup and start again; or, to start without the damaged ` +
      `records (every other record is kept, and the damaged files are copied to "${dir}/damaged/"), start once ` +
      `with --journal-damaged-records skip (or journal_damaged_records: skip in the configuration).`,
  );
}

/** Logs at most {@link LOG_LINES} lines per message, then how many more there were. */
export class LineBudget {
  readonly #log: Logger;
  readonly #counts = new Map<string, { level: "warn" | "error"; n: number }>();
  /** Lines go to `log`. */
  constructor(log: Logger) {
    this.#log = log;
  }
  /** Logs one line, unless {@link LOG_LINES} with this message went out already. */
  log(level: "warn" | "error", msg: string, fields: Record<string, unknown>): void {
    const c = this.#counts.get(msg) ?? { level, n: 0 };
    this.#counts.set(msg, c);
    if (++c.n <= LOG_LINES) this.#log[level](msg, fields);
  }
  /** Logs how many lines each message had beyond the bound. */
  flush(): void {
    for (const [msg, { level, n }] of this.#counts) {
      if (n > LOG_LINES) this.#log[level](`${msg} (${n - LOG_LINES} more not logged one by one)`, { total: n });
    }
  }
}
