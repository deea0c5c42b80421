/**
 * Worker script of `pglite_convert.ts`: runs one conversion in a thread of
 * its own, so that PGlite's WebAssembly memory (which a process does not
 * give back) goes when the worker is terminated. Log records are posted to
 * the parent, which writes them with its own logger.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type { LogFields, Logger } from "../../util/log.ts";
import { errorText } from "../types.ts";
import { convertPgliteStore } from "./pglite_convert.ts";

/** A message of this worker to its parent. */
export type ConvertWorkerMessage =
  | {
    readonly t: "log";
    readonly level: "debug" | "info" | "warn" | "error";
    readonly msg: string;
    readonly fields: LogFields;
  }
  | { readonly t: "done"; readonly result: Awaited<ReturnType<typeof convertPgliteStore>> }
  | { readonly t: "error"; readonly message: string };

function forwarding(base: LogFields): Logger {
  const post = (level: "debug" | "info" | "warn" | "error") => (msg: string, fields: LogFields = {}) =>
    self.postMessage({ t: "log", level, msg, fields: { ...base, ...fields } } satisfies ConvertWorkerMessage);
  return {
    debug: post("debug"),
    info: post("info"),
    warn: post("warn"),
    error: post("error"),
    child: (fields) => forwarding({ ...base, ...fields }),
  };
}

self.onmessage = async (e: MessageEvent<{ dataDir: string; now: number }>) => {
  try {
    const result = await convertPgliteStore(e.data.dataDir, forwarding({}), e.data.now);
    self.postMessage({ t: "done", result } satisfies ConvertWorkerMessage);
  } catch (error) {
    self.postMessage({ t: "error", message: errorText(error) } satisfies ConvertWorkerMessage);
  }
};
