/**
 * Dispatches the host function calls of a guest (spec 3 §4.6): finds the
 * function by interface and name -- the world's `phira-...` interfaces, or the
 * specification's `game-...` spelling of them (`set-room-game-api-endpoint`
 * included) -- checks the capability, runs it and shapes the answer. A
 * missing capability or a failure is the function's error case, never a
 * trap; functions without an error case (`bool`, `void`) answer false or
 * nothing and the failure is logged.
 *
 * @module
 */

import { OpsError } from "../../ops/mod.ts";
import { apiError, apiOk } from "../json_value.ts";
import type { HostAnswer } from "../process_types.ts";
import { CONFIG, CRYPTO, HANDLER, HOST_LOCAL, ROOM_STATE, TCP, TIMER } from "./fn_local.ts";
import { ADMIN, HOST_SERVER, MESSAGING, PERSISTENCE, QUERY, ROOM_MGMT, RUNTIME, USER_MGMT } from "./fn_server.ts";
import type { HostContext, HostFunction, InterfaceTable } from "./table.ts";

/** Every imported interface of the world by its name without prefix. */
export const INTERFACES: Readonly<Record<string, InterfaceTable>> = {
  types: {},
  events: {},
  host: { ...HOST_LOCAL, ...HOST_SERVER },
  query: QUERY,
  "room-mgmt": ROOM_MGMT,
  "user-mgmt": USER_MGMT,
  messaging: MESSAGING,
  persistence: PERSISTENCE,
  admin: ADMIN,
  config: CONFIG,
  crypto: CRYPTO,
  tcp: TCP,
  timer: TIMER,
  runtime: RUNTIME,
  "room-state": ROOM_STATE,
  handler: HANDLER,
};

/** The specification's names for functions the world names otherwise. */
const FUNCTION_ALIASES: Readonly<Record<string, string>> = { setRoomGameApiEndpoint: "setRoomPhiraApiEndpoint" };

/** Number of functions the world imports (72). */
export const FUNCTION_COUNT = Object.values(INTERFACES).reduce((n, t) => n + Object.keys(t).length, 0);

/** The interface (`host`, `room-mgmt`, ...) of a jco import key (`phira:plugin/phira-host`, `game:plugin/game-host`). */
export function interfaceOf(key: string): string | null {
  const m = /^(phira|game):plugin\/(phira|game)-([a-z-]+)$/.exec(key.replace(/@[^/]*$/, ""));
  return m && m[3]! in INTERFACES ? m[3]! : null;
}

/** The host function `name` of the interface behind `key`, or null. */
export function lookup(key: string, name: string): HostFunction | null {
  const iface = interfaceOf(key);
  if (!iface) return null;
  const table = INTERFACES[iface]!;
  return table[FUNCTION_ALIASES[name] ?? name] ?? null;
}

/** The imported functions the host does not provide (`phira-host.foo`), from the child's report. */
export function missingImports(used: Readonly<Record<string, readonly string[]>>): string[] {
  const missing: string[] = [];
  for (const [key, names] of Object.entries(used)) {
    for (const name of names) if (!lookup(key, name)) missing.push(`${key}#${name}`);
  }
  return missing;
}

function message(error: unknown): string {
  if (error instanceof OpsError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Answers one host function call. */
export async function dispatch(
  ctx: HostContext,
  key: string,
  name: string,
  args: readonly unknown[],
  onRefused: (fn: string, why: string) => void,
): Promise<HostAnswer> {
  const f = lookup(key, name);
  const label = `${key.replace(/^.*\//, "")}.${name}`;
  if (!f) return { e: `the host has no function ${label}` };
  if (f.capability && !ctx.has(f.capability)) {
    const why = `plugin ${ctx.id} lacks the capability "${f.capability}" needed by ${label} ` +
      `(grant it in ${ctx.id}.capabilities.json)`;
    onRefused(label, why);
    return failed(f, why, ctx, label);
  }
  try {
    const value = await f.run(ctx, args);
    switch (f.answer) {
      case "api":
        return { v: apiOk(value) };
      case "bool":
        return { v: value === true };
      case "void":
        return {};
      default:
        return { v: value };
    }
  } catch (error) {
    return failed(f, message(error), ctx, label);
  }
}

function failed(f: HostFunction, why: string, ctx: HostContext, label: string): HostAnswer {
  switch (f.answer) {
    case "api":
      return { v: apiError(why) };
    case "result":
      return { e: why };
    case "bool":
      ctx.log.debug("host function failed; answered false", { fn: label, error: why });
      return { v: false };
    default:
      ctx.log.warn("host function failed", { fn: label, error: why });
      return {};
  }
}
