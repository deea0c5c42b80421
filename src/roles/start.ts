/**
 * `chorus start` (the default role): runs the game server with everything
 * the configuration turns on (HTTP, OpenUDS, the console) until SIGINT,
 * SIGTERM or an operator's `exit`, then shuts down gracefully. Unattended:
 * stdin at end of file is never a reason to stop.
 *
 * @module
 */

import type { ServerRole } from "./server_role.ts";

/** The `start` role. */
export const start: ServerRole = {
  name: "start",
  summary: "run the game server (default); --tui for the terminal UI, --no-cli for no console",
  usage: [
    "Runs the game server until SIGINT, SIGTERM or SIGHUP (or the console's `exit`), then shuts down gracefully.",
    "",
    "Options:",
    "  --tui      the full-screen terminal UI instead of the line console",
    "  --no-cli   no console on this terminal (as under a service manager)",
  ],
  run: async (run) => (await import("./serve.ts")).serve(run),
};
