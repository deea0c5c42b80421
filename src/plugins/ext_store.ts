/**
 * Extension data (spec 3 §4.2 `extension list|get`, §4.6 `ext`): string
 * values that plugins attach to users, rooms, or the server as a whole
 * (`get-user-extra`, `set-user-extra`, `get-room-extra`, `api-call("ext.get"
 * | "ext.set")`), shared between plugins and readable by operators. Kept in
 * `<data_dir>/plugins/extensions.json` across restarts; a room's data goes
 * with the room when it is deleted. Bounded: keys of at most
 * {@link MAX_KEY} characters, values of at most {@link MAX_VALUE}, at most
 * {@link MAX_ENTRIES} values in all.
 *
 * @module
 */

import { JsonFileWriter, readJsonFile } from "./json_file.ts";

/** Longest key. */
export const MAX_KEY = 128;
/** Longest value (characters). */
export const MAX_VALUE = 64 * 1024;
/** Values kept in all. */
export const MAX_ENTRIES = 100_000;

/** Where a value belongs. */
export type ExtScope = "user" | "room" | "global";

interface Stored {
  users: Record<string, Record<string, string>>;
  rooms: Record<string, Record<string, string>>;
  global: Record<string, string>;
}

/** The extension data of the server. */
export class ExtensionStore {
  readonly #data: Record<ExtScope, Map<string, Map<string, string>>> = {
    user: new Map(),
    room: new Map(),
    global: new Map(),
  };
  #entries = 0;
  readonly #writer: JsonFileWriter;
  readonly path: string;

  private constructor(path: string) {
    this.path = path;
    this.#writer = new JsonFileWriter(path);
  }

  /** Opens the store at `path` (empty when the file does not exist). */
  static async open(path: string): Promise<ExtensionStore> {
    const store = new ExtensionStore(path);
    const raw = await readJsonFile<Partial<Stored>>(path, {});
    const load = (scope: ExtScope, byId: Record<string, Record<string, string>> | undefined) => {
      for (const [id, values] of Object.entries(byId ?? {})) {
        for (const [k, v] of Object.entries(values ?? {})) if (typeof v === "string") store.#put(scope, id, k, v);
      }
    };
    load("user", raw.users);
    load("room", raw.rooms);
    load("global", { "": raw.global ?? {} });
    return store;
  }

  /** A value, or null. */
  get(scope: ExtScope, id: string, key: string): string | null {
    return this.#data[scope].get(id)?.get(key) ?? null;
  }

  /** Every value of one user, room or the server. */
  entries(scope: ExtScope, id: string): Record<string, string> {
    return Object.fromEntries(this.#data[scope].get(id) ?? []);
  }

  /** Sets a value (null removes it); persists. Throws a RangeError for an oversized key or value, or past the limit. */
  async set(scope: ExtScope, id: string, key: string, value: string | null): Promise<void> {
    if (key.length === 0 || key.length > MAX_KEY) throw new RangeError(`key must be 1 to ${MAX_KEY} characters`);
    if (value !== null && value.length > MAX_VALUE) throw new RangeError(`value is over ${MAX_VALUE} characters`);
    if (value === null) this.#delete(scope, id, key);
    else {
      if (this.get(scope, id, key) === null && this.#entries >= MAX_ENTRIES) {
        throw new RangeError(`the extension data holds ${MAX_ENTRIES} values already`);
      }
      this.#put(scope, id, key, value);
    }
    await this.#save();
  }

  /** Drops everything of one user or room (a deleted room). */
  async drop(scope: ExtScope, id: string): Promise<void> {
    const values = this.#data[scope].get(id);
    if (!values) return;
    this.#entries -= values.size;
    this.#data[scope].delete(id);
    await this.#save();
  }

  /** What the store holds: ids per scope and the keys in use. */
  summary(): { users: number; rooms: number; global: number; values: number; keys: string[] } {
    const keys = new Set<string>();
    for (const scope of Object.values(this.#data)) {
      for (const m of scope.values()) for (const k of m.keys()) keys.add(k);
    }
    return {
      users: this.#data.user.size,
      rooms: this.#data.room.size,
      global: this.#data.global.get("")?.size ?? 0,
      values: this.#entries,
      keys: [...keys].sort().slice(0, 1000),
    };
  }

  /** Ids of a scope that hold data (at most `limit`). */
  ids(scope: ExtScope, limit = 1000): string[] {
    return [...this.#data[scope].keys()].slice(0, limit);
  }

  /** Waits for pending writes. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  #put(scope: ExtScope, id: string, key: string, value: string): void {
    let values = this.#data[scope].get(id);
    if (!values) this.#data[scope].set(id, values = new Map());
    if (!values.has(key)) this.#entries++;
    values.set(key, value);
  }

  #delete(scope: ExtScope, id: string, key: string): void {
    const values = this.#data[scope].get(id);
    if (!values?.delete(key)) return;
    this.#entries--;
    if (values.size === 0) this.#data[scope].delete(id);
  }

  async #save(): Promise<void> {
    const byId = (scope: ExtScope) =>
      Object.fromEntries([...this.#data[scope]].map(([id, m]) => [id, Object.fromEntries(m)]));
    await this.#writer.write({
      users: byId("user"),
      rooms: byId("room"),
      global: Object.fromEntries(this.#data.global.get("") ?? []),
    });
  }
}
