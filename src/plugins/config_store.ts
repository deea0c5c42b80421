/**
 * A plugin's own configuration (`phira-config`, extended.md §2.10):
 * `<data_dir>/plugins/<id>/config.json`, persisted across restarts. Keys
 * are dotted paths into one JSON object (`api.timeout`). `set-config` takes
 * JSON text (text that is not JSON is stored as a string). Every change
 * bumps a version; `poll-config-changes` returns the changes after a
 * version from a bounded log (when the log no longer reaches back that far
 * the answer says `truncated` and carries the whole configuration).
 * `reload-config` reads the file again (an operator edited it).
 *
 * @module
 */

import { JsonFileWriter, readJsonFile } from "./json_file.ts";

/** Changes kept for `poll-config-changes`. */
export const CONFIG_LOG_SIZE = 256;

/** Largest configuration (bytes of JSON). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

type JsonObject = Record<string, unknown>;

/** One change. */
export interface ConfigChange {
  readonly version: number;
  readonly key: string;
  /** The new value; null when removed. */
  readonly value: unknown;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function splitPath(path: string): string[] {
  const parts = path.split(".");
  if (path === "" || parts.some((p) => p === "" || p === "__proto__" || p === "constructor" || p === "prototype")) {
    throw new RangeError(`invalid key path "${path}"`);
  }
  return parts;
}

/** Every leaf of `value` by dotted path. */
function leaves(value: unknown, prefix: string, out: Record<string, unknown>): void {
  if (isObject(value) && Object.keys(value).length) {
    for (const [k, v] of Object.entries(value)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out[prefix] = value;
}

/** The configuration of one plugin. */
export class PluginConfig {
  readonly path: string;
  #data: JsonObject = {};
  #version = 0;
  #log: ConfigChange[] = [];
  readonly #writer: JsonFileWriter;

  private constructor(path: string) {
    this.path = path;
    this.#writer = new JsonFileWriter(path);
  }

  /** Opens (reads) the configuration at `path`; a missing file is an empty configuration. */
  static async open(path: string): Promise<PluginConfig> {
    const config = new PluginConfig(path);
    await config.reload();
    return config;
  }

  /** The current version (0 before any change). */
  get version(): number {
    return this.#version;
  }

  /** The value at `keyPath`, or null. */
  get(keyPath: string): unknown {
    let at: unknown = this.#data;
    for (const part of splitPath(keyPath)) {
      if (!isObject(at) || !(part in at)) return null;
      at = at[part];
    }
    return at ?? null;
  }

  /** Sets `keyPath` to the JSON in `text` (or the text itself); persists; returns the new version. */
  async set(keyPath: string, text: string): Promise<number> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
    const parts = splitPath(keyPath);
    const next = structuredClone(this.#data);
    let at: JsonObject = next;
    for (const part of parts.slice(0, -1)) {
      if (!isObject(at[part])) at[part] = {};
      at = at[part] as JsonObject;
    }
    at[parts.at(-1)!] = value;
    if (JSON.stringify(next).length > MAX_CONFIG_BYTES) {
      throw new RangeError(`the configuration would be over ${MAX_CONFIG_BYTES} bytes`);
    }
    this.#data = next;
    this.#record(keyPath, value);
    await this.#writer.write(this.#data);
    return this.#version;
  }

  /** Leaves whose path starts with `prefix` (all for ""). */
  list(prefix: string): Record<string, unknown> {
    const all: Record<string, unknown> = {};
    leaves(this.#data, "", all);
    return Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith(prefix)));
  }

  /** Reads the file again; records a change per leaf that differs. Throws on malformed JSON (the old values stay). */
  async reload(): Promise<{ version: number; changed: number }> {
    const raw = await readJsonFile<unknown>(this.path, {});
    if (!isObject(raw)) throw new RangeError(`${this.path} does not hold a JSON object`);
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    leaves(this.#data, "", before);
    leaves(raw, "", after);
    this.#data = raw;
    let changed = 0;
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) {
        this.#record(key, after[key] ?? null);
        changed++;
      }
    }
    return { version: this.#version, changed };
  }

  /** Changes after `since`, oldest first. */
  changesSince(since: number): { version: number; changes: ConfigChange[]; truncated: boolean; config?: JsonObject } {
    const oldest = this.#log[0]?.version ?? this.#version + 1;
    const truncated = since + 1 < oldest && since < this.#version;
    return {
      version: this.#version,
      changes: this.#log.filter((c) => c.version > since),
      truncated,
      ...(truncated ? { config: structuredClone(this.#data) } : {}),
    };
  }

  /** Waits for pending writes. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  #record(key: string, value: unknown): void {
    this.#version++;
    this.#log.push({ version: this.#version, key, value });
    if (this.#log.length > CONFIG_LOG_SIZE) this.#log.shift();
  }
}
