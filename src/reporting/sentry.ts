/**
 * Error reporting (spec 3 §2.3 `sentry_dsn`) through the Sentry SDK: every
 * error-level log record and every uncaught error becomes an event,
 * scrubbed of tokens and secrets (`scrub.ts`) before it is sent. Nothing is
 * set up, and nothing is sent, when no DSN is configured.
 *
 * The SDK's core (`@sentry/core`, whose server client `@sentry/deno` only
 * wraps) is used as an instance -- its client bound to a scope of our own --
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
import { type ErrorReporter, MAX_EVENTS_PER_MINUTE, NO_REPORTER, type ReporterOptions } from "./reporter.ts";
import { Scrubber } from "./scrub.ts";

export { type ErrorReporter, MAX_EVENTS_PER_MINUTE, NO_REPORTER, type ReporterOptions };

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
