/**
 * `chorus load`: the load generator (issue 8). It has its own options
 * (`--port`, `--duration`, ..., see `src/load/args.ts`), which are not game
 * server configuration keys, and reads no configuration file.
 *
 * @module
 */

import { loadUsage } from "../load/args.ts";
import type { Role } from "./role.ts";

/** The `load` role. */
export const loadRole: Role = {
  name: "load",
  summary: "load generator: chorus load <sessions|rooms|logins|sse|http> [options] (see load --help)",
  get usage() {
    return loadUsage();
  },
  // The generator itself is loaded on demand, so the other roles never load it.
  run: async (args) => (await import("../load/mod.ts")).runLoad(args),
};
