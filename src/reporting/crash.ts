/**
 * Uncaught errors when error reporting is on: the error is logged (and so
 * reported, with its stack), the report is sent -- at most two seconds are
 * spent on it -- and the process exits non-zero as it would have anyway, so
 * its supervisor restarts it. Without a DSN Deno's own behaviour stays.
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import type { ErrorReporter } from "./reporter.ts";

/** Exit code after an uncaught error (EX_SOFTWARE). */
export const EXIT_CRASH = 70;

/** Installs the handlers; returns the function that removes them. */
export function reportCrashes(reporter: ErrorReporter, log: Logger, exit: (code: number) => void): () => void {
  if (!reporter.enabled) return () => {};
  let crashed = false;
  const handle = (error: unknown, event: Event) => {
    event.preventDefault();
    if (crashed) return;
    crashed = true;
    log.error("uncaught error; exiting", { error: error instanceof Error ? error : String(error) });
    void reporter.flush(2000).finally(() => exit(EXIT_CRASH));
  };
  const onError = (event: ErrorEvent) => handle(event.error, event);
  const onRejection = (event: PromiseRejectionEvent) => handle(event.reason, event);
  globalThis.addEventListener("error", onError);
  globalThis.addEventListener("unhandledrejection", onRejection);
  return () => {
    globalThis.removeEventListener("error", onError);
    globalThis.removeEventListener("unhandledrejection", onRejection);
  };
}
