/**
 * The process's error reporter, with the Sentry SDK loaded only when a DSN
 * is configured (issue 15 "Load on demand"): without one it is
 * {@link NO_REPORTER}; with one, the client (`sentry.ts`) is loaded at once
 * and what is reported before it is ready waits for it, bounded by the
 * per-minute cap (the client would drop the rest anyway).
 *
 * @module
 */

import type { LogRecord } from "../util/log.ts";
import { type ErrorReporter, MAX_EVENTS_PER_MINUTE, NO_REPORTER, type ReporterOptions } from "./reporter.ts";

/** A reporter for `options.dsn` that loads the SDK on its own, or {@link NO_REPORTER} when there is no DSN. */
export function lazyErrorReporter(options: ReporterOptions): ErrorReporter {
  if (!options.dsn) return NO_REPORTER;
  let client: ErrorReporter | null = null;
  let early: ((c: ErrorReporter) => void)[] = [];
  let droppedEarly = 0;
  const loading = import("./sentry.ts").then((m) => {
    client = m.createErrorReporter(options);
    for (const call of early) call(client);
    early = [];
    return client;
  });
  const use = (call: (c: ErrorReporter) => void) => {
    if (client) call(client);
    else if (early.length < MAX_EVENTS_PER_MINUTE) early.push(call);
    else droppedEarly++;
  };
  const reporter: ErrorReporter = {
    enabled: true,
    get dropped() {
      return droppedEarly + (client?.dropped ?? 0);
    },
    captureError: (error, fields) => use((c) => c.captureError(error, fields)),
    captureRecord: (record: LogRecord) => {
      if (record.level === "error") use((c) => c.captureRecord(record));
    },
    follow: (logs) => logs.subscribe((record) => reporter.captureRecord(record)),
    flush: async (ms) => (await loading).flush(ms),
    close: async (ms) => (await loading).close(ms),
  };
  return reporter;
}
