/**
 * `chorus check-config`: prints the effective configuration, the source of
 * each value, secrets masked (issue 2 "Configuration"). Exit 3 when the
 * configuration is invalid, with the reason and where the value came from.
 *
 * @module
 */

import { renderEffectiveConfig } from "../config/mod.ts";
import { EXIT, print } from "./role.ts";
import type { ServerRole } from "./server_role.ts";

/** The `check-config` role. */
export const checkConfig: ServerRole = {
  name: "check-config",
  summary: "print the effective configuration, the source of each value, secrets masked",
  usage: [
    "Prints the effective game server configuration with the source of every value (default, file, environment,",
    "flag); secrets are masked. Exits 3 with the reason when a value is invalid.",
  ],
  run: (run) => {
    print(renderEffectiveConfig(run.loaded));
    return Promise.resolve(EXIT.ok);
  },
};
