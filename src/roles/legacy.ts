/**
 * `chorus legacy`: legacy mode for operators migrating Lua plugins (spec 3
 * §1.5) -- the game server with the legacy keys (`http_port` defaults to
 * 61234), Lua plugins, the legacy HTTP API and the legacy console. Same
 * configuration sources and messages as `start`; the mode itself is loaded
 * on demand (`legacy/`), so other roles never load fengari.
 *
 * @module
 */

import type { Role } from "./role.ts";
import { runServerRole, type ServerRole, serverRoleUsage } from "./server_role.ts";

const legacy: ServerRole = {
  name: "legacy",
  summary: "legacy mode: Lua plugins, HTTP API on 61234 (admin token, one-time codes, replays), legacy console",
  usage: [
    "Runs the game server in legacy mode (docs/legacy-migration.md): Lua plugins from plugins_dir and the",
    "built-in ones, the legacy HTTP API on http_port (61234 unless configured), the legacy console.",
    "Legacy keys: port, http_port, admin_token (PM_ADMIN_TOKEN, --admin-token), replay_enabled,",
    "room_creation_enabled, monitors; the legacy section for Lua limits and replay retention.",
    "",
    "Options:",
    "  --tui      the full-screen terminal UI instead of the line console",
    "  --no-cli   no console on this terminal (as under a service manager)",
  ],
  run: async (run) => {
    const [{ serve }, { legacyMode, withLegacyDefaults }] = await Promise.all([
      import("./serve.ts"),
      import("../../legacy/mod.ts"),
    ]);
    return await serve(run, { adjust: withLegacyDefaults, mode: legacyMode() });
  },
};

/** The `legacy` role. */
export const legacyRole: Role = {
  name: legacy.name,
  summary: legacy.summary,
  get usage() {
    return serverRoleUsage(legacy);
  },
  run: (args) => runServerRole(args, [legacy], legacy, () => serverRoleUsage(legacy)),
};
