/**
 * `room set <id> <field> <value>` (spec 3 §4.2): one command for every
 * room setting, value validated per field, each field set by its operation.
 *
 * @module
 */

import { invalid } from "../ops/mod.ts";
import { parseBool, parseInteger } from "./args.ts";
import type { CommandCall, CommandSpec } from "./registry.ts";

/** Boolean fields: the operation and its argument. */
const BOOL_FIELDS = {
  lock: ["room.lock", "locked"],
  cycle: ["room.cycle", "cycle"],
  hidden: ["room.set_hidden", "hidden"],
  persistent: ["room.set_persistent", "persistent"],
  degraded: ["room.set_degraded", "degraded"],
  tournament: ["room.set_tournament", "tournament"],
  live: ["room.set_live", "live"],
} as const;

/** Field names of `room set`, with accepted spellings. */
export const ROOM_SET_FIELDS = [...Object.keys(BOOL_FIELDS), "host", "chart", "api_endpoint", "max_users"] as const;

const SPELLINGS: Readonly<Record<string, string>> = {
  locked: "lock",
  "chart-id": "chart",
  chart_id: "chart",
  "api-endpoint": "api_endpoint",
  game_api_endpoint: "api_endpoint",
  phira_api_endpoint: "api_endpoint",
  "max-users": "max_users",
};

/** Applies one setting through its operation; returns the confirmation line. */
export async function roomSet(call: CommandCall, id: string, fieldWord: string, value: string): Promise<string> {
  const field = SPELLINGS[fieldWord.toLowerCase()] ?? fieldWord.toLowerCase();
  if (field in BOOL_FIELDS) {
    const b = parseBool(value);
    if (b === null) invalid(`invalid value "${value}" for ${field}: expected on or off`);
    const [op, key] = BOOL_FIELDS[field as keyof typeof BOOL_FIELDS];
    await call.op(op, { room_id: id, [key]: b });
    return `room ${id}: ${field} ${b ? "on" : "off"}`;
  }
  switch (field) {
    case "host": {
      const v = value.toLowerCase();
      const target = v === "system" || v === "?" ? "system" : v === "none" ? null : parseInteger(value);
      if (target === null && v !== "none") invalid(`invalid host "${value}": expected a player id, system or none`);
      await call.op("room.set_host", { room_id: id, host_id: target ?? "none" });
      return `room ${id}: host ${target === null ? "none (the next player to join takes it)" : target}`;
    }
    case "chart": {
      const [chartWord = "", ...name] = value.split(" ");
      const chartId = parseInteger(chartWord);
      if (chartId === null) invalid(`invalid chart "${chartWord}": expected a chart id`);
      const set = await call.op("room.set_chart", {
        room_id: id,
        chart_id: chartId,
        chart_name: name.join(" ") || undefined,
      }) as { chart_name: string | null };
      return `room ${id}: chart ${chartId} "${set.chart_name ?? ""}"`;
    }
    case "api_endpoint": {
      const v = value.toLowerCase();
      const endpoint = v === "none" || v === "default" ? null : value;
      await call.op("room.set_api_endpoint", { room_id: id, endpoint });
      return `room ${id}: api endpoint ${endpoint ?? "server default"}`;
    }
    case "max_users": {
      const n = parseInteger(value, 1, 10000);
      if (n === null) invalid(`invalid max_users "${value}": expected an integer between 1 and 10000`);
      await call.op("room.set_max_users", { room_id: id, max_users: n });
      return `room ${id}: max_users ${n}`;
    }
    default:
      return invalid(`unknown field "${fieldWord}": expected one of ${ROOM_SET_FIELDS.join(", ")}`);
  }
}

/** The `room set` command. */
export function roomSetCommand(): CommandSpec {
  return {
    name: "room set",
    args: [
      { name: "room_id", kind: "room" },
      { name: "field", kind: "word" },
      { name: "value", kind: "text" },
    ],
    help: `change a setting: ${ROOM_SET_FIELDS.join("|")} (host: id|system|none, api_endpoint: url|default)`,
    group: "Rooms",
    run: async (args, call) => [await roomSet(call, args.str("room_id"), args.str("field"), args.str("value"))],
  };
}
