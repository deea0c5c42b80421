/**
 * Error reporting (spec 3 §2.3 `sentry_dsn`) through the Sentry SDK: every
 * error-level log record and every uncaught error becomes an event,
 * scrubbed of tokens and secrets (`scrub.ts`) before it is sent. Nothing is
 * set up, and nothing is sent, when no DSN is configured.
 *
 * The SDK's core (`@sentry/core`, whose server client `@sentry/deno` only
 * wraps) is used as an instance — its client bound to a scope of our own —
 * not through a global `init`: no patched `console`, no global breadcrumbs,
 * no automatic instrumentation, and 20 MB less in the binary than the Deno
 * package, whose database and framework integrations a game server never
 * loads. Events are capped per minute so that an error storm costs the
 * service one burst, not a flood.
 *
 * @module
 */

import {
  createStackParser,
  createTransport,
  dedupeIntegration,
  linkedErrorsIntegration,
  nodeStackLineParser,
  Scope,
  SDK_VERSION,
  ServerRuntimeClient,
} from "@sentry/core";
import type { Clock } from "../util/clock.ts";
import type { LogHub, LogRecord } from "../util/log.ts";
import { Scrubber } from "./scrub.ts";

/** Events sent per minute at most; the rest are counted and dropped. */
export const MAX_EVENTS_PER_MINUTE = 30;

/** Options of {@link createErrorReporter}. */
export interface ReporterOptions {
  /** The DSN; null or empty = reporting off. */
  readonly dsn: string | null;
  /** `chorus@<version>`. */
  readonly release: string;
  /** The profile (`production`, `staging`, `development`). */
  readonly environment: string;
  readonly serverName?: string;
  /** Exact secret values to redact (the configuration's). */
  readonly secrets?: readonly string[];
  readonly clock: Clock;
  /** Transport fetch (tests; default the global one). */
  readonly fetch?: typeof fetch;
}

/** Reports errors; a no-op when reporting is off. */
export interface ErrorReporter {
  readonly enabled: boolean;
  /** Events dropped by the per-minute cap. */
  readonly dropped: number;
  /** Reports an error (an uncaught one, a failed operation) with context fields. */
  captureError(error: unknown, fields?: Record<string, unknown>): void;
  /** Reports an error-level log record. */
  captureRecord(record: LogRecord): void;
  /** Reports error-level records of `logs` from now on; returns the function that stops it. */
  follow(logs: LogHub): () => void;
  /** Sends what is queued, waiting at most `ms`. */
  flush(ms?: number): Promise<boolean>;
  close(ms?: number): Promise<void>;
}

/** The reporter that reports nothing (no DSN). */
export const NO_REPORTER: ErrorReporter = {
  enabled: false,
  dropped: 0,
  captureError: () => {},
  captureRecord: () => {},
  follow: () => () => {},
  flush: () => Promise.resolve(true),
  close: () => Promise.resolve(),
};

/** A reporter for `options.dsn`, or {@link NO_REPORTER} when there is none. */
export function createErrorReporter(options: ReporterOptions): ErrorReporter {
  if (!options.dsn) return NO_REPORTER;
  const doFetch = options.fetch ?? fetch;
  const scrubber = new Scrubber(options.secrets ?? []);
  const client = new ServerRuntimeClient({
    dsn: options.dsn,
    platform: "javascript",
    runtime: { name: "deno", version: Deno.version.deno },
    _metadata: { sdk: { name: "sentry.javascript.core", version: SDK_VERSION } },
    release: options.release,
    environment: options.environment,
    ...(options.serverName ? { serverName: options.serverName } : {}),
    sendDefaultPii: false,
    integrations: [dedupeIntegration(), linkedErrorsIntegration()],
    stackParser: createStackParser(nodeStackLineParser()),
    transport: (transportOptions) =>
      createTransport(transportOptions, async (request) => {
        const response = await doFetch(transportOptions.url, {
          method: "POST",
          body: request.body as BodyInit,
          headers: transportOptions.headers ?? {},
        });
        await response.body?.cancel();
        return {
          statusCode: response.status,
          headers: {
            "x-sentry-rate-limits": response.headers.get("x-sentry-rate-limits"),
            "retry-after": response.headers.get("retry-after"),
          },
        };
      }),
    // The last word before anything leaves: the whole event, scrubbed.
    beforeSend: (event) => scrubber.value(event),
    beforeBreadcrumb: () => null,
  });
  const scope = new Scope();
  scope.setClient(client);
  scope.setContext("runtime", { name: "deno", version: Deno.version.deno });
  scope.setContext("os", { name: Deno.build.os, arch: Deno.build.arch });
  client.init();

  let windowStart = options.clock.now();
  let sentInWindow = 0;
  let dropped = 0;
  const admit = (): boolean => {
    const now = options.clock.now();
    if (now - windowStart >= 60_000) {
      windowStart = now;
      sentInWindow = 0;
    }
    if (sentInWindow >= MAX_EVENTS_PER_MINUTE) {
      dropped++;
      return false;
    }
    sentInWindow++;
    return true;
  };

  const reporter: ErrorReporter = {
    enabled: true,
    get dropped() {
      return dropped;
    },
    captureError(error, fields = {}) {
      if (!admit()) return;
      scope.captureException(error, { captureContext: { extra: fields } });
    },
    captureRecord(record) {
      if (record.level !== "error" || !admit()) return;
      const { error, ...fields } = record.fields as Record<string, unknown>;
      const extra = { ...fields, ...(error !== undefined ? { error: String(error) } : {}) };
      if (error instanceof Error) {
        scope.captureException(error, { captureContext: { extra: { ...extra, msg: record.msg } } });
      } else scope.captureMessage(record.msg, "error", { captureContext: { extra } });
    },
    follow(logs) {
      return logs.subscribe((record) => reporter.captureRecord(record));
    },
    flush: async (ms = 2000) => await client.flush(ms),
    close: async (ms = 2000) => {
      await client.close(ms);
    },
  };
  return reporter;
}
