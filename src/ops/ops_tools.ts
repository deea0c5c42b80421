/**
 * Tools and placeholders: the in-process benchmark (spec 3 §4.9
 * `test.run_benchmark`, console `benchmark`), and the `plugin.*`
 * operations of spec 3 §4.5, which answer `UNAVAILABLE` until a plugin host
 * replaces them (`ops.replace`). Parameters are validated first.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { type ServerOp, serverOp } from "./server_op.ts";
import { OpsError, unavailable } from "./errors.ts";
import { p } from "./params.ts";
import type { Permission } from "./actor.ts";

/** Said by the `plugin.*` placeholders. */
export const NO_PLUGINS = "the plugin host is not running in this process";

/** The benchmark and the plugin placeholders. */
export function toolOps(): ServerOp[] {
  const plugin = (
    name: string,
    shape: z.core.$ZodShape,
    summary: string,
    mutates = true,
    permission: Permission = "operator",
  ) =>
    serverOp({
      name,
      summary,
      permission,
      mutates,
      params: shape,
      run: () => unavailable(NO_PLUGINS),
    });
  return [
    serverOp({
      name: "test.run_benchmark",
      summary: "in-process load test on virtual sessions and bench- rooms, cleaned up afterwards",
      permission: "operator",
      mutates: true,
      params: { args: z._default(z.array(z.string().check(z.maxLength(64))).check(z.maxLength(32)), []) },
      run: async (a, { context: s }) => {
        const bench = s.deps.benchmark ?? unavailable("the in-process benchmark is not available in this process");
        if (s.core.shuttingDown) throw new OpsError("INVALID_STATE", "the server is shutting down");
        let plan: unknown;
        try {
          plan = bench.parse(a.args);
        } catch (error) {
          if (error instanceof RangeError) throw new OpsError("INVALID_ARGUMENT", error.message);
          throw error;
        }
        const description = bench.describe(plan);
        try {
          const { lines, report } = await bench.run(plan);
          return { description, lines, report: report ?? null };
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          if (code === "BUSY") throw new OpsError("CONFLICT", (error as Error).message);
          if (code === "STOPPING") throw new OpsError("INVALID_STATE", (error as Error).message);
          throw error;
        }
      },
    }),
    plugin("plugin.list", {}, "loaded plugins", false),
    plugin("plugin.reload", {}, "reload every plugin"),
    plugin("plugin.enable", { name: p.text(128) }, "enable a plugin"),
    plugin("plugin.disable", { name: p.text(128) }, "disable a plugin"),
    plugin("plugin.info", { name: p.text(128) }, "one plugin's manifest and state", false),
    plugin("plugin.remove", { name: p.text(128) }, "unload and remove a plugin"),
    plugin(
      "plugin.call",
      { name: p.text(128), method: p.text(128), args: z.optional(z.array(z.unknown())) },
      "call a plugin's on-api method",
    ),
    plugin("extension.list", {}, "extension data: users and rooms holding values, and the keys in use", false, "ext"),
    plugin(
      "extension.get",
      {
        scope: z.enum(["user", "room", "global"]),
        id: z.optional(z.union([z.string(), z.number()])),
        key: z.optional(z.string()),
      },
      "extension values of a user, a room or the server",
      false,
      "ext",
    ),
  ];
}
