/**
 * `chorus companions`: the first-generation companion services (user
 * manager, room log follower, statistics poller, command and file services)
 * and the site that serves their pages. Own options and configuration file
 * (`companions.yml`); loaded on demand so other roles never load it.
 *
 * @module
 */

import type { Role } from "./role.ts";

/** The `companions` role. */
export const companionsRole: Role = {
  name: "companions",
  summary: "the companion services (user manager, room log, statistics, command, file) and their site",
  usage: "Usage: chorus companions [--config companions.yml] [options]   (chorus companions --help lists them)",
  run: async (args) => (await import("../companions/mod.ts")).runCompanions(args),
};
