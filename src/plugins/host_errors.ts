/**
 * Errors of the plugin host's operator actions (`plugin enable|disable|...`):
 * an unknown id, or a state that does not allow the action.
 *
 * @module
 */

/** No plugin of that id. */
export class PluginNotFound extends Error {
  constructor(id: string) {
    super(`no plugin ${id}`);
    this.name = "PluginNotFound";
  }
}

/** The plugin's state does not allow the action. */
export class PluginStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PluginStateError";
  }
}
