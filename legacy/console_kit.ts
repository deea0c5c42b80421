/**
 * How the legacy console's commands are written (spec 3 §4.3): each takes
 * the words after its name, acts through an operation and answers lines in
 * the original's texts; an operation's refusal becomes `Error: ...`.
 *
 * @module
 */

import { OpsError } from "../src/ops/mod.ts";
import type { Args, CommandCall, CommandSpec } from "../src/console/mod.ts";

/** `Yes` or `No`, as the original printed booleans. */
export const yes = (b: boolean): string => (b ? "Yes" : "No");
/** Longest console message, characters. */
export const MAX_MESSAGE = 200;

/** The words after the command (optional rest argument). */
const REST = [{ name: "args", kind: "words", optional: true }] as const;

/** Runs `fn`, turning an operation's refusal into `Error: ...`. */
export async function attempt(fn: () => Promise<string[]>): Promise<string[]> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof OpsError) return [`Error: ${error.message}`];
    throw error;
  }
}

/** A 32-bit-sized decimal integer, or null. */
export function int(word: string | undefined): number | null {
  return word !== undefined && /^-?\d{1,10}$/.test(word) ? Number(word) : null;
}

/** Calls operation `name` as the console's caller. */
export const op = (call: CommandCall, name: string, args: unknown): Promise<unknown> => call.op(name, args);

const words = (args: Args) => args.words("args");

/** A legacy command: `run` gets the words after the name. */
export function command(
  name: string,
  aliases: string[],
  help: string,
  run: (w: string[], call: CommandCall) => string[] | Promise<string[]>,
): CommandSpec {
  return { name, aliases, args: REST, help, group: "Legacy", run: (a, call) => run(words(a), call) };
}

/** A `<name> <on|off|status>` switch over operation `opName`, answering `texts` (on, off, is on, is off). */
export function onOff(
  name: string,
  what: string,
  opName: string,
  texts: [string, string, string, string],
): CommandSpec {
  return command(name, [], `${what} <on|off|status>`, (w, call) =>
    attempt(async () => {
      const arg = w[0]?.toLowerCase();
      if (arg === "on" || arg === "off") {
        await op(call, opName, { enabled: arg === "on" });
        return [arg === "on" ? texts[0] : texts[1]];
      }
      if (arg === "status") {
        const r = await op(call, opName, {}) as { enabled: boolean };
        return [r.enabled ? texts[2] : texts[3]];
      }
      return [`Usage: ${name} <on|off|status>`];
    }));
}
