/**
 * Small JSON files written atomically (a temporary file renamed over the
 * old one), one write at a time per file and coalesced: a burst of changes
 * costs one write of the latest content, and a crash leaves the old file or
 * the new one, never half of either.
 *
 * @module
 */

/** Reads a JSON file; `fallback` when it does not exist. Throws on malformed JSON. */
export async function readJsonFile<T>(path: string, fallback: T): Promise<T> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return fallback;
    throw error;
  }
  return JSON.parse(text) as T;
}

/** Writes the latest value given, atomically; later calls while one runs coalesce into one more write. */
export class JsonFileWriter {
  readonly #path: string;
  #latest: string | null = null;
  #running: Promise<void> | null = null;

  constructor(path: string) {
    this.#path = path;
  }

  /** Schedules a write of `value`; resolves once a write including it finished (rejects if it failed). */
  write(value: unknown): Promise<void> {
    this.#latest = JSON.stringify(value, null, 2);
    this.#running ??= this.#drain().finally(() => (this.#running = null));
    return this.#running;
  }

  /** Resolves once pending writes finished. */
  async flush(): Promise<void> {
    await this.#running?.catch(() => {});
  }

  async #drain(): Promise<void> {
    while (this.#latest !== null) {
      const text = this.#latest;
      this.#latest = null;
      const dir = this.#path.slice(0, this.#path.lastIndexOf("/"));
      if (dir) await Deno.mkdir(dir, { recursive: true });
      const temp = `${this.#path}.tmp-${crypto.randomUUID().slice(0, 8)}`;
      try {
        await Deno.writeTextFile(temp, text);
        await Deno.rename(temp, this.#path);
      } catch (error) {
        await Deno.remove(temp).catch(() => {});
        throw error;
      }
    }
  }
}
