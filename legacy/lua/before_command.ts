/**
 * `on_before_command(user, type, data)` (spec 3 §4.8): the one synchronous
 * hook, run inside the command pipeline's veto seam. Returning `false`
 * refuses the command with the protocol's error reply and a localized
 * reason (`false, "text"` gives the text). The user table is built once per
 * command and cached in each state by its fingerprint.
 *
 * @module
 */

import { translate } from "../../src/l10n/mod.ts";
import type { CommandView, ServerCore } from "../../src/server/mod.ts";
import { luaUser } from "../views.ts";
import { hookCommand } from "./commands.ts";
import { pushString } from "./fengari.ts";
import type { LuaPlugin } from "./plugin.ts";
import type { CallOutcome } from "./runtime.ts";
import { pushValue } from "./values.ts";

/** Runs the hook of each plugin in load order; the refusal's reason, or null when every plugin lets it pass. */
export function beforeCommand(
  core: ServerCore,
  plugins: readonly LuaPlugin[],
  view: CommandView,
  after: (plugin: LuaPlugin, outcome: CallOutcome<unknown[] | undefined>) => void,
): string | null {
  if (view.userId === null) return null;
  const user = core.users.get(view.userId);
  const command = hookCommand(view.cmd);
  if (!user || !command) return null;
  let userTable: ReturnType<typeof luaUser> | null = null;
  let fingerprint = "";
  for (const plugin of plugins) {
    const rt = plugin.runtime;
    if (!rt) continue;
    if (!userTable) {
      userTable = luaUser(core, user);
      fingerprint = Object.values(userTable).join("\u0000");
    }
    const u = userTable;
    const outcome = plugin.callHook("on_before_command", (L) => {
      rt.pushCached(`user:${u.id}`, fingerprint, u);
      pushString(L, command.type);
      pushValue(L, command.data);
      return 3;
    }, 2);
    after(plugin, outcome);
    if (!outcome.ok || !outcome.value || outcome.value[0] !== false) continue;
    const reason = outcome.value[1];
    if (typeof reason === "string" && reason.trim()) return reason.slice(0, 200);
    return translate(user.locale, "plugin-refused");
  }
  return null;
}
