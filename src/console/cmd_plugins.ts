/**
 * `plugin list|enable|disable|remove|reload|info|call` and `extension
 * list|get` (spec 3 §4.2): adapters over the `plugin.*` and `extension.*`
 * operations, which the plugin host provides (without it they answer
 * `UNAVAILABLE`). Plugins add commands of their own through handlers.
 *
 * @module
 */

import { OpsError } from "../ops/mod.ts";
import { jsonLines } from "./cmd_op.ts";
import type { CommandSpec } from "./registry.ts";
import { fmtTime } from "./text.ts";

interface Summary {
  id: string;
  name: string | null;
  version: string | null;
  state: string;
  reason: string | null;
  since: number;
  capabilities: string[];
}

/** Parses a console word as JSON when it is JSON, else keeps it as text (`plugin call` arguments). */
function jsonWord(word: string): unknown {
  try {
    return JSON.parse(word);
  } catch {
    return word;
  }
}

function summaryLine(p: Summary): string {
  const name = p.name && p.name !== p.id
    ? ` (${p.name}${p.version ? ` ${p.version}` : ""})`
    : p.version
    ? ` ${p.version}`
    : "";
  return `${p.id}${name}: ${p.state}${p.reason ? ` \u2014 ${p.reason}` : ""}`;
}

/** The plugin and extension commands. */
export function pluginCommands(): CommandSpec[] {
  const group = "Plugins";
  const one = (sub: string, op: string, help: string): CommandSpec => ({
    name: `plugin ${sub}`,
    args: [{ name: "id", kind: "word" }],
    help,
    group,
    run: async (args, call) => [summaryLine(await call.op(op, { name: args.str("id") }) as Summary)],
  });
  return [
    {
      name: "plugin list",
      aliases: ["plugin"],
      help: "plugins with their state (Loaded, Enabled, Disabled, Error) and why",
      group,
      run: async (_args, call) => {
        const { plugins } = await call.op("plugin.list") as { plugins: Summary[] };
        return plugins.length ? plugins.map(summaryLine) : ["no plugins"];
      },
    },
    {
      name: "plugin info",
      args: [{ name: "id", kind: "word" }],
      help: "one plugin: manifest, state, capabilities, queue, counters, routes, streams, handlers",
      group,
      run: async (args, call) => {
        const info = await call.op("plugin.info", { name: args.str("id") }) as Summary & Record<string, unknown>;
        return [summaryLine(info), `since: ${fmtTime(info.since)}`, ...jsonLines(info)];
      },
    },
    one("enable", "plugin.enable", "enable a disabled or failed plugin (loads and initializes it again)"),
    one("disable", "plugin.disable", "disable a plugin: cleanup, process stopped, its routes and streams removed"),
    one("remove", "plugin.remove", "unload a plugin and set its files aside as <id>.wasm.removed"),
    {
      name: "plugin reload",
      args: [{ name: "id", kind: "word", optional: true }],
      help: "reload one plugin, or all of them (new files are loaded, missing ones removed)",
      group,
      run: async (args, call) => {
        const id = args.optStr("id");
        const { plugins } = await call.op("plugin.reload", id ? { name: id } : {}) as { plugins: Summary[] };
        return plugins.length ? plugins.map(summaryLine) : ["no plugins"];
      },
    },
    {
      name: "plugin call",
      args: [{ name: "id", kind: "word" }, { name: "method", kind: "word" }, {
        name: "args",
        kind: "words",
        optional: true,
      }],
      help: "call a plugin's on-api method; each argument is read as JSON when it is JSON, else as text",
      group,
      run: async (args, call) =>
        jsonLines(
          await call.op("plugin.call", {
            name: args.str("id"),
            method: args.str("method"),
            args: args.words("args").map(jsonWord),
          }),
        ),
    },
    {
      name: "extension list",
      aliases: ["extension"],
      help: "extension data: users and rooms holding values, and the keys in use",
      group,
      run: async (_args, call) => jsonLines(await call.op("extension.list")),
    },
    {
      name: "extension get",
      args: [
        { name: "scope", kind: "choice", choices: ["user", "room", "global"] },
        { name: "rest", kind: "words", optional: true },
      ],
      help: "extension values: extension get user <id> [key] | room <id> [key] | global [key]",
      group,
      run: async (args, call) => {
        const scope = args.str("scope");
        const rest = args.words("rest");
        const [id, key] = scope === "global" ? [undefined, rest[0]] : rest;
        if (scope !== "global" && id === undefined) {
          throw new OpsError("INVALID_ARGUMENT", `extension get ${scope} needs an id`);
        }
        const named: Record<string, unknown> = { scope };
        if (id !== undefined) named.id = scope === "user" && /^-?\d+$/.test(id) ? Number(id) : id;
        if (key !== undefined) named.key = key;
        return jsonLines(await call.op("extension.get", named));
      },
    },
  ];
}
