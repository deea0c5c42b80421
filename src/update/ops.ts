/**
 * The `update.*` operations (spec 3 §4.2, §5.4), one per action, so that the
 * console (`update check|apply|force|schedule|cancel|auto [on|off]`),
 * OpenUDS (`update.check`, ...) and plugins reach the updater the same way.
 * `apply` and `force` answer once the new binary is in place; the process
 * then stops and exits non-zero so that its supervisor starts the new one.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { OpsError, type ServerOp, serverOp } from "../ops/mod.ts";
import { UpdateError } from "./errors.ts";
import type { UpdateStatus } from "./status.ts";
import type { Updater } from "./updater.ts";

/** The operations layer's error for an update failure. */
function opsErrorOf(error: unknown): unknown {
  if (!(error instanceof UpdateError)) return error;
  switch (error.code) {
    case "UNAVAILABLE":
      return new OpsError("UNAVAILABLE", error.message);
    case "BUSY":
    case "REFUSED":
    case "CANCELLED":
      return new OpsError("INVALID_STATE", error.message);
    default:
      return new OpsError("CONFLICT", `${error.code.toLowerCase()}: ${error.message}`);
  }
}

async function mapped<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw opsErrorOf(error);
  }
}

/** The operations over one updater. */
export function updateOps(updater: Updater): ServerOp[] {
  const op = (
    name: string,
    summary: string,
    run: () => Promise<UpdateStatus | Record<string, unknown>>,
  ) =>
    serverOp({
      name: `update.${name}`,
      summary,
      permission: "operator",
      mutates: true,
      run: () => mapped<unknown>(run),
    });
  return [
    serverOp({
      name: "update.status",
      summary: "self-update state: versions, pending update and what it waits for, last check and error",
      permission: "state.read",
      run: () => updater.status(),
    }),
    serverOp({
      name: "update.check",
      summary: "check the release manifest now",
      permission: "operator",
      run: () => mapped(() => updater.check()),
    }),
    op("apply", "install the newest release now if no player is online, then restart", () => updater.request("apply")),
    op("force", "install the manifest's release now, whoever is online, then restart", () => updater.request("force")),
    op(
      "schedule",
      "install the newest release once nobody has been online for min_idle_minutes",
      () => updater.request("scheduled"),
    ),
    op("cancel", "drop the pending update (a download in progress stops; it resumes later)", () => {
      const cancelled = updater.cancel();
      return Promise.resolve({ cancelled, ...updater.status() });
    }),
    serverOp({
      name: "update.auto",
      summary: "automatic updates on or off (run-time switch; config reload leaves it), or show it",
      permission: "operator",
      mutates: true,
      params: { enabled: z.optional(z.boolean({ error: "expected true or false" })) },
      run: (a) => mapped(() => (a.enabled === undefined ? updater.status() : updater.setAuto(a.enabled))),
    }),
    op("rollback", "put the previous binary back and restart into it", async () => {
      await updater.rollback();
      return { rolled_back: true };
    }),
  ];
}
