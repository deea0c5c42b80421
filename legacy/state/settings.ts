/**
 * Where legacy mode keeps what must survive a restart (room bans, disabled
 * plugins, imported files): named JSON values in the server's durable
 * settings. An interface so tests use memory.
 *
 * @module
 */

/** Named JSON values that survive a restart. */
export interface SettingsStore {
  get(key: string): unknown;
  /** Sets a value; `null` deletes it. */
  set(key: string, value: unknown): void;
}

/** Settings in memory (tests; a server without a durable store). */
export class MemorySettings implements SettingsStore {
  readonly #values = new Map<string, unknown>();

  get(key: string): unknown {
    return this.#values.get(key);
  }

  set(key: string, value: unknown): void {
    if (value === null) this.#values.delete(key);
    else this.#values.set(key, structuredClone(value));
  }
}
