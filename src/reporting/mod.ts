/**
 * Error reporting (spec 3 §2.3 `sentry_dsn`): the Sentry SDK for Deno,
 * used as an instance, with every event scrubbed of tokens and secrets.
 *
 * @module
 */

export { createErrorReporter } from "./sentry.ts";
export { type ErrorReporter, MAX_EVENTS_PER_MINUTE, NO_REPORTER, type ReporterOptions } from "./reporter.ts";
export { lazyErrorReporter } from "./lazy.ts";
export { EXIT_CRASH, reportCrashes } from "./crash.ts";
export { configSecrets, REDACTED, Scrubber } from "./scrub.ts";
