/**
 * Error reporting (spec 3 §2.3 `sentry_dsn`): the Sentry SDK for Deno,
 * used as an instance, with every event scrubbed of tokens and secrets.
 *
 * @module
 */

export {
  createErrorReporter,
  type ErrorReporter,
  MAX_EVENTS_PER_MINUTE,
  NO_REPORTER,
  type ReporterOptions,
} from "./sentry.ts";
export { EXIT_CRASH, reportCrashes } from "./crash.ts";
export { configSecrets, REDACTED, Scrubber } from "./scrub.ts";
