/**
 * The one console command registry (spec 3 §4.2; issue 7): every command is
 * declared once -- name, aliases, arguments, help and a handler that returns
 * output lines -- and the terminal console, the terminal UI, the in-game
 * console and OpenUDS `cli.execute` all run lines through it. Plugins add
 * commands with {@link CommandRegistry.register}.
 *
 * A line resolves to the command with the longest matching name, so
 * `ban ip 1.2.3.4` is `ban ip` and `ban 5` is `ban`.
 *
 * @module
 */

import { type Actor, actorLabel, InputLog, OpsError, type OpsErrorCode } from "../ops/mod.ts";
import type { Logger } from "../util/log.ts";
import { Args, type ArgSpec, argUsage, parseArgs } from "./args.ts";
import { tokenize, TokenizeError } from "./tokenize.ts";

/** What a handler is told about the call. */
export interface CommandCall {
  readonly actor: Actor;
  readonly registry: CommandRegistry;
  /** Calls an operation as this command's actor (rejects with an `OpsError`). */
  op(name: string, args?: unknown): Promise<unknown>;
}

/** Calls operations for the commands (the operations layer's `Ops.call`). */
export type OpCaller = (name: string, args: unknown, actor: Actor) => Promise<unknown>;

/** One command, declared once. */
export interface CommandSpec {
  /** One to three words, lower case: `users`, `room info`, `admin-id add`. */
  readonly name: string;
  /** Other names: `u`, `room i`. */
  readonly aliases?: readonly string[];
  readonly args?: readonly ArgSpec[];
  /** One line for `help`. */
  readonly help: string;
  /** Section of `help`. */
  readonly group?: string;
  /** Does the work; returns output lines, throws an `OpsError` on failure. */
  run(args: Args, call: CommandCall): string[] | Promise<string[]>;
}

/** Result of one command line. */
export type CommandOutcome =
  | { readonly ok: true; readonly lines: string[] }
  | { readonly ok: false; readonly code: OpsErrorCode; readonly message: string; readonly lines: string[] };

/** Options of {@link CommandRegistry}. */
export interface RegistryOptions {
  /** Time source of the input log (the server clock). */
  readonly now: () => number;
  readonly log?: Logger;
  /** Where inputs are recorded (the operations layer's, read by `logs.input`); a new one of 1000 when absent. */
  readonly inputs?: InputLog;
  /** How commands call operations; without it a command calling one fails `UNAVAILABLE`. */
  readonly call?: OpCaller;
}

const MAX_WORDS = 3;

/** The registry of console commands. */
export class CommandRegistry {
  readonly #byName = new Map<string, CommandSpec>();
  readonly #specs: CommandSpec[] = [];
  readonly #now: () => number;
  readonly #log: Logger | undefined;
  readonly #call: OpCaller;
  /** Recent operator input from every front end. */
  readonly inputs: InputLog;

  constructor(options: RegistryOptions) {
    this.#now = options.now;
    this.#log = options.log;
    this.inputs = options.inputs ?? new InputLog();
    this.#call = options.call ?? (() => Promise.reject(new OpsError("UNAVAILABLE", "no operations in this registry")));
  }

  /** Adds a command; throws when one of its names is taken. Returns a function that removes it. */
  register(spec: CommandSpec): () => void {
    const names = [spec.name, ...(spec.aliases ?? [])].map(normalizeName);
    for (const name of names) {
      if (!name || name.split(" ").length > MAX_WORDS) throw new TypeError(`Cannot register command "${name}"`);
      if (this.#byName.has(name)) throw new TypeError(`Cannot register command "${name}": the name is taken`);
    }
    const specs = spec.args ?? [];
    const restAt = specs.findIndex((a) => a.kind === "text" || a.kind === "ints" || a.kind === "words");
    if (restAt !== -1 && restAt !== specs.length - 1) {
      throw new TypeError(`Cannot register command "${spec.name}": a rest argument must come last`);
    }
    for (const name of names) this.#byName.set(name, spec);
    this.#specs.push(spec);
    return () => {
      for (const name of names) if (this.#byName.get(name) === spec) this.#byName.delete(name);
      const i = this.#specs.indexOf(spec);
      if (i !== -1) this.#specs.splice(i, 1);
    };
  }

  /** Removes the command registered under `name` (with all its names); false when there is none. */
  unregister(name: string): boolean {
    const spec = this.#byName.get(normalizeName(name));
    if (!spec) return false;
    for (const n of [spec.name, ...(spec.aliases ?? [])]) this.#byName.delete(normalizeName(n));
    this.#specs.splice(this.#specs.indexOf(spec), 1);
    return true;
  }

  /** Every command in registration order. */
  commands(): readonly CommandSpec[] {
    return this.#specs;
  }

  /** The command a line's words name, and the words left for its arguments. */
  resolve(words: readonly string[]): { spec: CommandSpec; rest: string[] } | null {
    for (let n = Math.min(MAX_WORDS, words.length); n > 0; n--) {
      const spec = this.#byName.get(normalizeName(words.slice(0, n).join(" ")));
      if (spec) return { spec, rest: words.slice(n) };
    }
    return null;
  }

  /** Runs one line as `actor`. Never throws. */
  async run(line: string, actor: Actor): Promise<CommandOutcome> {
    const label = actorLabel(actor);
    const text = line.trim();
    if (text) this.inputs.record(label.source, label.actor, text, this.#now());
    let spec: CommandSpec | undefined;
    try {
      const words = tokenize(text);
      if (!words.length) return { ok: true, lines: [] };
      const found = this.resolve(words);
      if (!found) throw new OpsError("UNKNOWN_COMMAND", this.#unknown(words));
      spec = found.spec;
      const args = parseArgs(spec.args ?? [], found.rest);
      this.#log?.info("operator command", { ...label, command: spec.name });
      const op = (name: string, opArgs?: unknown) => this.#call(name, opArgs ?? {}, actor);
      return { ok: true, lines: await spec.run(args, { actor, registry: this, op }) };
    } catch (error) {
      if (error instanceof TokenizeError) return failure("INVALID_ARGUMENT", error.message, []);
      if (error instanceof OpsError) {
        const usage = error.code === "INVALID_ARGUMENT" && spec ? [`usage: ${this.usage(spec)}`] : [];
        return failure(error.code, error.message, usage);
      }
      this.#log?.error("operator command failed", { ...label, command: spec?.name, error: String(error) });
      return failure("INTERNAL", `internal error: ${error instanceof Error ? error.message : String(error)}`, []);
    }
  }

  /** Runs one line and returns its output lines (errors as `error: ...`); the in-game console's runner. */
  async execute(line: string, actor: Actor): Promise<string[]> {
    return (await this.run(line, actor)).lines;
  }

  /** `name <arg> [opt]`. */
  usage(spec: CommandSpec): string {
    return [spec.name, ...(spec.args ?? []).map(argUsage)].join(" ");
  }

  /** `help` output: every command, or those whose name starts with `topic`. */
  help(topic = ""): string[] {
    const t = normalizeName(topic);
    const chosen = this.#specs.filter((s) =>
      !t || [s.name, ...(s.aliases ?? [])].some((n) => n === t || n.startsWith(`${t} `))
    );
    if (!chosen.length) return [`no command matches "${topic}"; type help for the list`];
    const rows = chosen.map((s) => {
      const aliases = s.aliases?.length ? ` (also: ${s.aliases.join(", ")})` : "";
      return { group: s.group ?? "Other", usage: this.usage(s), help: s.help + aliases };
    });
    const width = Math.min(44, Math.max(...rows.map((r) => r.usage.length)));
    const lines: string[] = [];
    let group = "";
    for (const row of [...rows].sort((a, b) => groupRank(a.group, chosen) - groupRank(b.group, chosen))) {
      if (row.group !== group) {
        group = row.group;
        lines.push(`${group}:`);
      }
      lines.push(`  ${row.usage.padEnd(width)}  ${row.help}`);
    }
    return lines;
  }

  /** Command names (and aliases) completing `text`, for Tab in the line editor. */
  complete(text: string): string[] {
    const t = text.replace(/^\s+/, "").replace(/\s+/g, " ").toLowerCase();
    const out = new Set<string>();
    for (const name of this.#byName.keys()) {
      if (!name.startsWith(t)) continue;
      // Complete word by word: `ro` -> `room`, `rooms`; `room i` -> `room info`, `room i`.
      const typedWords = t.split(" ").length;
      out.add(name.split(" ").slice(0, typedWords).join(" "));
    }
    return [...out].sort();
  }

  #unknown(words: readonly string[]): string {
    const first = normalizeName(words[0] ?? "");
    const subs = [...this.#byName.keys()].filter((n) => n.startsWith(`${first} `)).map((n) => n.split(" ")[1]!);
    if (subs.length) {
      const sub = words[1] === undefined ? "" : ` "${words[1]}"`;
      return `unknown ${first} subcommand${sub}; expected one of: ${[...new Set(subs)].join(", ")}`;
    }
    return `unknown command "${words[0]}"; type help for the list`;
  }
}

function failure(code: OpsErrorCode, message: string, extra: string[]): CommandOutcome {
  return { ok: false, code, message, lines: [`error: ${message}`, ...extra] };
}

function normalizeName(name: string): string {
  return name.trim().replace(/\s+/g, " ").toLowerCase();
}

function groupRank(group: string, specs: readonly CommandSpec[]): number {
  const i = specs.findIndex((s) => (s.group ?? "Other") === group);
  return i === -1 ? specs.length : i;
}
