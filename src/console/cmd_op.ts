/**
 * The generic console commands over the operations layer: `op <name>
 * [args]` calls any operation -- a built-in one or one a plugin host added --
 * and prints its JSON result; `ops [prefix]` lists them. Arguments are a
 * JSON object or array (in single quotes: `op room.lock '{"room_id":
 * "abc", "locked": true}'`), or words: `key=value` for a named argument,
 * else the next positional one. A word is read as JSON when the parameter
 * accepts that (`user_id=5`, `locked=true`, `user_ids=[1,2]`), else as text
 * (`room_id=123` stays the room "123").
 *
 * @module
 */

import type { ServerOps } from "../ops/mod.ts";
import { type Operation, OpsError } from "../ops/mod.ts";
import type { CommandSpec } from "./registry.ts";

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The value of one word for parameter `name`: JSON when the parameter takes it, else the text. */
function coerce(op: Operation<never> | undefined, name: string | undefined, word: string): unknown {
  const json = parseJson(word);
  const field = name === undefined ? undefined : op?.schema.shape[name];
  if (!json.ok) return word;
  if (!field || field.safeParse(json.value).success) return json.value;
  return field.safeParse(word).success ? word : json.value;
}

/** The arguments of `op <name> ...` from the words after the name. */
export function opArgs(op: Operation<never> | undefined, words: readonly string[]): unknown {
  const text = words.join(" ").trim();
  if (!text) return {};
  if (words.length === 1 && (text.startsWith("{") || text.startsWith("["))) {
    const json = parseJson(text);
    if (!json.ok) throw new OpsError("INVALID_ARGUMENT", `invalid JSON arguments: ${text}`);
    return json.value;
  }
  const params = op?.positional ?? [];
  const named: Record<string, unknown> = {};
  let next = 0;
  for (const word of words) {
    const eq = word.indexOf("=");
    const key = eq > 0 ? word.slice(0, eq) : "";
    if (key && params.includes(key)) {
      named[key] = coerce(op, key, word.slice(eq + 1));
      continue;
    }
    while (next < params.length && params[next]! in named) next++;
    const name = params[next];
    if (name === undefined) throw new OpsError("INVALID_ARGUMENT", `unexpected argument "${word}"`);
    named[name] = coerce(op, name, word);
    next++;
  }
  return named;
}

/** A JSON result as console lines. */
export function jsonLines(value: unknown): string[] {
  if (value === null || value === undefined) return ["ok"];
  return JSON.stringify(value, null, 2).split("\n");
}

/** `op` and `ops`. */
export function opCommands(ops: ServerOps): CommandSpec[] {
  const group = "Operations";
  return [
    {
      name: "op",
      args: [{ name: "name", kind: "word" }, { name: "args", kind: "words", optional: true }],
      help: "call any operation: JSON in single quotes ('{...}', '[...]'), key=value or positional words",
      group,
      run: async (args, call) => {
        const name = args.str("name");
        const op = ops.get(name) as Operation<never> | undefined;
        if (!op) throw new OpsError("UNKNOWN_COMMAND", `unknown operation "${name}"; type ops for the list`);
        return jsonLines(await call.op(name, opArgs(op, args.words("args"))));
      },
    },
    {
      name: "ops",
      args: [{ name: "prefix", kind: "word", optional: true }],
      help: "list operations (those starting with the prefix)",
      group,
      run: (args) => {
        const prefix = args.optStr("prefix") ?? "";
        const list = ops.list().filter((o) => [o.name, ...o.aliases].some((n) => n.startsWith(prefix)));
        if (!list.length) return [`no operation starts with "${prefix}"`];
        const width = Math.min(32, Math.max(...list.map((o) => o.name.length)));
        return list.map((o) => {
          const aliases = o.aliases.length ? ` (also: ${o.aliases.join(", ")})` : "";
          const params = o.params.length ? ` [${o.params.join(", ")}]` : "";
          return `${o.name.padEnd(width)}  ${o.summary}${params}${aliases}`;
        });
      },
    },
  ];
}
