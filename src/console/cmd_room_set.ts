/**
 * `room set <id> <field> <value>` (spec 3 §4.2): one command for every
 * room setting, value validated per field.
 *
 * @module
 */

import type { RoomFlags } from "../room/mod.ts";
import { parseBool, parseInteger } from "./args.ts";
import { invalid, unwrap } from "./errors.ts";
import type { CommandSpec } from "./registry.ts";
import type { ConsoleServices } from "./services.ts";

const BOOL_FIELDS = {
  lock: "locked",
  cycle: "cycle",
  hidden: "hidden",
  persistent: "persistent",
  degraded: "degraded",
  tournament: "tournament",
  live: "live",
} as const satisfies Record<string, keyof RoomFlags>;

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

/** Applies one setting; returns the confirmation line. */
export async function roomSet(s: ConsoleServices, id: string, fieldWord: string, value: string): Promise<string> {
  const ops = s.admin.roomOps;
  const field = SPELLINGS[fieldWord.toLowerCase()] ?? fieldWord.toLowerCase();
  if (field in BOOL_FIELDS) {
    const b = parseBool(value);
    if (b === null) invalid(`invalid value "${value}" for ${field}: expected on or off`);
    unwrap(ops.setFlags(id, { [BOOL_FIELDS[field as keyof typeof BOOL_FIELDS]]: b }));
    return `room ${id}: ${field} ${b ? "on" : "off"}`;
  }
  switch (field) {
    case "host": {
      const v = value.toLowerCase();
      const target = v === "system" || v === "?" ? "system" : v === "none" ? null : parseInteger(value);
      if (target === null && v !== "none") invalid(`invalid host "${value}": expected a player id, system or none`);
      unwrap(ops.setHost(id, target));
      return `room ${id}: host ${target === null ? "none (the next player to join takes it)" : target}`;
    }
    case "chart": {
      const [chartWord = "", ...name] = value.split(" ");
      const chartId = parseInteger(chartWord);
      if (chartId === null) invalid(`invalid chart "${chartWord}": expected a chart id`);
      unwrap(await ops.setChart(id, chartId, name.join(" ") || undefined));
      const chart = s.core.rooms.get(id)?.chart;
      return `room ${id}: chart ${chartId} "${chart?.name ?? ""}"`;
    }
    case "api_endpoint": {
      const v = value.toLowerCase();
      const endpoint = v === "none" || v === "default" ? null : value;
      unwrap(ops.setFlags(id, { apiEndpoint: endpoint }));
      return `room ${id}: api endpoint ${endpoint ?? "server default"}`;
    }
    case "max_users": {
      const n = parseInteger(value, 1, 10000);
      if (n === null) invalid(`invalid max_users "${value}": expected an integer between 1 and 10000`);
      unwrap(ops.setFlags(id, { maxPlayers: n }));
      return `room ${id}: max_users ${n}`;
    }
    default:
      return invalid(`unknown field "${fieldWord}": expected one of ${ROOM_SET_FIELDS.join(", ")}`);
  }
}

/** The `room set` command. */
export function roomSetCommand(s: ConsoleServices): CommandSpec {
  return {
    name: "room set",
    args: [
      { name: "room_id", kind: "room" },
      { name: "field", kind: "word" },
      { name: "value", kind: "text" },
    ],
    help: `change a setting: ${ROOM_SET_FIELDS.join("|")} (host: id|system|none, api_endpoint: url|default)`,
    group: "Rooms",
    run: async (args) => [await roomSet(s, args.str("room_id"), args.str("field"), args.str("value"))],
  };
}
