/**
 * Operator choices about Lua plugins survive a restart (spec 3 §4.8): the
 * ids an operator disabled are kept in the durable settings.
 *
 * @module
 */

import type { SettingsStore } from "../state/settings.ts";

const DISABLED_KEY = "legacy.disabled_plugins";

/** The ids an operator disabled. */
export function disabledPlugins(settings: SettingsStore): Set<string> {
  const saved = settings.get(DISABLED_KEY);
  return new Set(Array.isArray(saved) ? saved.filter((v) => typeof v === "string") : []);
}

/** Remembers that `id` is disabled (or no longer). */
export function rememberDisabled(settings: SettingsStore, id: string, disabled: boolean): void {
  const set = disabledPlugins(settings);
  if (disabled === set.has(id)) return;
  if (disabled) set.add(id);
  else set.delete(id);
  settings.set(DISABLED_KEY, set.size ? [...set].sort() : null);
}
