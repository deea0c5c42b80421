/**
 * The plugin state machine (spec 3 §3.3: Loaded, Enabled, Disabled, Error).
 * Pure: a state and an event give the next state, or null when the event
 * does not apply in that state. The host performs the I/O around each
 * transition (start or stop the child process, call `init` or `cleanup`,
 * add or remove routes). docs/plugins.md lists the same table.
 *
 * | From                      | Event                                        | To       |
 * | ------------------------- | -------------------------------------------- | -------- |
 * | (none)                    | `loaded`: file read, compiled, process ready | Loaded   |
 * | (none), Loaded            | `load_failed`: bad file, capability, world   | Error    |
 * | Loaded                    | `init_ok`                                    | Enabled  |
 * | Loaded                    | `init_failed`, `init_timeout`                | Error    |
 * | Enabled                   | `quarantine`: call timeout, trap, crash, OOM | Error    |
 * | Loaded, Enabled, Error    | `disable`                                    | Disabled |
 * | Disabled, Error           | `enable` (then loaded / init as above)       | Loaded   |
 * | any                       | `reload` (then loaded / init as above)       | Loaded   |
 * | any                       | `remove`                                     | (gone)   |
 *
 * @module
 */

/** A plugin's state. */
export type PluginState = "loaded" | "enabled" | "disabled" | "error";

/** What happens to a plugin. */
export type PluginTransition =
  | "loaded"
  | "load_failed"
  | "init_ok"
  | "init_failed"
  | "init_timeout"
  | "quarantine"
  | "disable"
  | "enable"
  | "reload"
  | "remove";

/** The state names as operators read them. */
export const STATE_LABELS: Readonly<Record<PluginState, string>> = {
  loaded: "Loaded",
  enabled: "Enabled",
  disabled: "Disabled",
  error: "Error",
};

/** The next state, `"removed"` for a removed plugin, or null when `event` does not apply in `state`. */
export function nextState(state: PluginState | null, event: PluginTransition): PluginState | "removed" | null {
  switch (event) {
    case "loaded":
      return state === null || state === "loaded" ? "loaded" : null;
    case "load_failed":
      return state === null || state === "loaded" ? "error" : null;
    case "init_ok":
      return state === "loaded" ? "enabled" : null;
    case "init_failed":
    case "init_timeout":
      return state === "loaded" ? "error" : null;
    case "quarantine":
      return state === "enabled" ? "error" : null;
    case "disable":
      return state === "loaded" || state === "enabled" || state === "error" ? "disabled" : null;
    case "enable":
      return state === "disabled" || state === "error" ? "loaded" : null;
    case "reload":
      return state === null ? null : "loaded";
    case "remove":
      return state === null ? null : "removed";
  }
}
