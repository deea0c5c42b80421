/**
 * Readiness of the wired process for `/health/ready` (spec 1 §4.3, §7): not
 * ready while the server shuts down, while the store is unreachable
 * (records wait in the journal, spec 3 §8), or while journal writes keep
 * failing (records are then only in memory: a crash would lose them).
 *
 * @module
 */

import type { HealthStatus } from "./http/mod.ts";

/** The persistence figures readiness reads (a subset of `PersistenceStatus`). */
export interface PersistenceHealth {
  readonly store_up: boolean;
  readonly counters: { readonly write_failures: number; readonly sync_failures: number };
}

/** Where readiness looks. */
export interface ReadinessSources {
  /** True once the game server began shutting down. */
  shuttingDown(): boolean;
  /** The persistence report (`Persistence.status()`). */
  persistence(): PersistenceHealth;
  /** Milliseconds now (the server clock). */
  now(): number;
  /**
   * The plugin host, when there is one: not ready while the plugins found at
   * start-up are still loading (their routes and streams are not there yet);
   * its states are shown in the body either way (null: no plugins, nothing
   * shown). A plugin in Error does not make the server unready: the game goes
   * on without it.
   */
  plugins?(): { starting: boolean; summary: Readonly<Record<string, unknown>> } | null;
}

/** Issue text while the store is unreachable. */
export const STORE_DOWN_ISSUE = "store unreachable: records wait in the journal";
/** How far back journal failures count. */
export const JOURNAL_FAILURE_WINDOW_MS = 60_000;
/** Journal write or fsync failures within the window that make the process not ready. */
export const JOURNAL_FAILURE_THRESHOLD = 3;

/** Samples are kept at most this often, so the list stays bounded by window / spacing. */
const SAMPLE_SPACING_MS = 1000;

/**
 * The readiness function. A single failed append is logged and survives
 * (the record is applied from memory); failures that keep happening mean the
 * disk is gone or full, which an orchestrator should see. Failures are
 * counted against samples taken by earlier probes: the baseline is the
 * newest sample at least a window old (or the first one).
 */
export function appReadiness(sources: ReadinessSources): () => HealthStatus {
  const samples: { at: number; failures: number }[] = [{ at: sources.now(), failures: 0 }];
  return () => {
    const now = sources.now();
    const status = sources.persistence();
    const failures = status.counters.write_failures + status.counters.sync_failures;
    if (now - samples.at(-1)!.at >= SAMPLE_SPACING_MS) samples.push({ at: now, failures });
    // Drop samples older than the newest one that is a full window old: it stays as the baseline.
    while (samples.length > 1 && samples[1]!.at <= now - JOURNAL_FAILURE_WINDOW_MS) samples.shift();
    const recent = failures - samples[0]!.failures;
    const issues: string[] = [];
    if (sources.shuttingDown()) issues.push("shutting down");
    if (!status.store_up) issues.push(STORE_DOWN_ISSUE);
    if (recent >= JOURNAL_FAILURE_THRESHOLD) {
      issues.push(
        `journal writes failing: ${recent} write or fsync failures in the last ${
          JOURNAL_FAILURE_WINDOW_MS / 1000
        } s (records are kept in memory only)`,
      );
    }
    const plugins = sources.plugins?.();
    if (plugins?.starting) issues.push("plugins are starting");
    return { ready: issues.length === 0, issues, ...(plugins ? { details: { plugins: plugins.summary } } : {}) };
  };
}
