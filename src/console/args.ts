/**
 * Console arguments: each command declares its arguments once (name, kind,
 * optional); the registry validates the words against them before the
 * handler runs and builds the usage line from them (spec 3 §4.2).
 *
 * @module
 */

import { roomIdProblem } from "../protocol/mod.ts";
import { invalid } from "../ops/mod.ts";

/** How an argument's word(s) are read. */
export type ArgKind =
  /** A 32-bit integer id of a game user. */
  | "user"
  /** An integer, optionally bounded by `min`/`max`. */
  | "int"
  /** A room id (1-20 letters, digits, `-`, `_`; spec 3 §8). */
  | "room"
  /** Any single word. */
  | "word"
  /** `on|off|true|false|yes|no|1|0`. */
  | "bool"
  /** One of `choices`. */
  | "choice"
  /** The rest of the line as text (last argument only). */
  | "text"
  /** The rest of the line as integers separated by spaces or commas (last argument only). */
  | "ints"
  /** The rest of the line as its words, quoted groups kept whole (last argument only). */
  | "words";

/** One declared argument. */
export interface ArgSpec {
  readonly name: string;
  readonly kind: ArgKind;
  readonly optional?: boolean;
  readonly choices?: readonly string[];
  readonly min?: number;
  readonly max?: number;
}

const I32_MIN = -2147483648;
const I32_MAX = 2147483647;
const TRUE_WORDS = new Set(["on", "true", "yes", "1", "enable", "enabled"]);
const FALSE_WORDS = new Set(["off", "false", "no", "0", "disable", "disabled"]);

/** Parses an on/off word; null when it is neither. */
export function parseBool(word: string): boolean | null {
  const w = word.toLowerCase();
  return TRUE_WORDS.has(w) ? true : FALSE_WORDS.has(w) ? false : null;
}

/** Parses a decimal integer in `[min, max]`; null when it is not one. */
export function parseInteger(word: string, min = I32_MIN, max = I32_MAX): number | null {
  if (!/^[+-]?\d{1,10}$/.test(word)) return null;
  const n = Number(word);
  return n >= min && n <= max ? n : null;
}

/** The usage of one argument: `<user_id>`, `[reason...]`, `<on|off>`. */
export function argUsage(spec: ArgSpec): string {
  const body = spec.kind === "choice" && spec.choices
    ? spec.choices.join("|")
    : spec.kind === "bool"
    ? `${spec.name}:on|off`
    : spec.kind === "text" || spec.kind === "ints" || spec.kind === "words"
    ? `${spec.name}...`
    : spec.name;
  return spec.optional ? `[${body}]` : `<${body}>`;
}

/** Validated argument values, read by name with the type of the declared kind. */
export class Args {
  readonly #values: Map<string, unknown>;

  constructor(values: Map<string, unknown>) {
    this.#values = values;
  }

  /** True when the argument was given. */
  has(name: string): boolean {
    return this.#values.has(name);
  }

  #get(name: string): unknown {
    if (!this.#values.has(name)) throw new TypeError(`Cannot read argument "${name}": it was not given`);
    return this.#values.get(name);
  }

  /** A `user`/`int` argument. */
  int(name: string): number {
    return this.#get(name) as number;
  }

  /** A `room`/`word`/`choice`/`text` argument. */
  str(name: string): string {
    return this.#get(name) as string;
  }

  /** A `bool` argument. */
  bool(name: string): boolean {
    return this.#get(name) as boolean;
  }

  /** An `ints` argument (empty when optional and absent). */
  ints(name: string): number[] {
    return this.has(name) ? this.#get(name) as number[] : [];
  }

  /** A `words` argument (empty when optional and absent). */
  words(name: string): string[] {
    return this.has(name) ? this.#get(name) as string[] : [];
  }

  /** An optional string argument. */
  optStr(name: string): string | undefined {
    return this.has(name) ? this.str(name) : undefined;
  }

  /** An optional integer argument. */
  optInt(name: string): number | undefined {
    return this.has(name) ? this.int(name) : undefined;
  }
}

function parseOne(spec: ArgSpec, word: string): unknown {
  switch (spec.kind) {
    case "user": {
      const n = parseInteger(word);
      return n ?? invalid(`invalid ${spec.name} "${word}": expected an integer user id`);
    }
    case "int": {
      const n = parseInteger(word, spec.min, spec.max);
      if (n !== null) return n;
      const range = spec.min !== undefined && spec.max !== undefined ? ` between ${spec.min} and ${spec.max}` : "";
      return invalid(`invalid ${spec.name} "${word}": expected an integer${range}`);
    }
    case "room": {
      const problem = roomIdProblem(word);
      return problem ? invalid(`invalid room id "${word}": ${problem}`) : word;
    }
    case "bool": {
      const b = parseBool(word);
      return b ?? invalid(`invalid ${spec.name} "${word}": expected on or off`);
    }
    case "choice": {
      const choice = spec.choices?.find((c) => c === word.toLowerCase());
      return choice ?? invalid(`invalid ${spec.name} "${word}": expected one of ${spec.choices?.join(", ")}`);
    }
    default:
      return word;
  }
}

/** Validates `words` against `specs`; throws `INVALID_ARGUMENT` naming the first problem. */
export function parseArgs(specs: readonly ArgSpec[], words: readonly string[]): Args {
  const values = new Map<string, unknown>();
  let i = 0;
  for (const spec of specs) {
    if (spec.kind === "text" || spec.kind === "ints" || spec.kind === "words") {
      const rest = words.slice(i);
      i = words.length;
      if (spec.kind === "words") {
        if (rest.length) values.set(spec.name, rest);
      } else if (spec.kind === "text") {
        const text = rest.join(" ").trim();
        if (text) values.set(spec.name, text);
      } else {
        const parts = rest.flatMap((w) => w.split(",")).filter((w) => w !== "");
        if (parts.length) values.set(spec.name, parts.map((p) => parseOne({ ...spec, kind: "user" }, p)));
      }
      if (!values.has(spec.name) && !spec.optional) invalid(`missing ${argUsage(spec)}`);
      continue;
    }
    const word = words[i];
    if (word === undefined) {
      if (!spec.optional) invalid(`missing ${argUsage(spec)}`);
      continue;
    }
    values.set(spec.name, parseOne(spec, word));
    i++;
  }
  if (i < words.length) invalid(`unexpected argument "${words[i]}"`);
  return new Args(values);
}
