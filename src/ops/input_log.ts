/**
 * The bounded record of operator input (OpenUDS `logs.input`): every
 * console line, in-game console line and local-socket command, with where
 * it came from. Lines are kept as typed; no command takes a secret.
 *
 * @module
 */

/** One recorded input. */
export interface InputRecord {
  readonly seq: number;
  /** Unix milliseconds. */
  readonly time: number;
  /** `console`, `in-game`, `openuds`. */
  readonly source: string;
  /** Who: `console`, the game user id, or the OpenUDS session id. */
  readonly actor: string;
  readonly input: string;
}

/** A ring of the most recent inputs. */
export class InputLog {
  readonly capacity: number;
  #items: InputRecord[] = [];
  #seq = 0;

  constructor(capacity = 1000) {
    this.capacity = Math.max(1, capacity);
  }

  /** Records one input. */
  record(source: string, actor: string, input: string, time: number): void {
    this.#items.push({ seq: ++this.#seq, time, source, actor, input });
    if (this.#items.length > this.capacity) this.#items.splice(0, this.#items.length - this.capacity);
  }

  /** The last `limit` inputs, oldest first. */
  recent(limit: number): InputRecord[] {
    return limit > 0 ? this.#items.slice(-limit) : [];
  }
}
