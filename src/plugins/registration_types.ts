/**
 * What plugin registrations connect to: the console's command registry, the
 * caller of a plugin's `on-api`, and how a handler's answer is printed.
 *
 * @module
 */

import type { RequestOutcome } from "./runtime.ts";

/** Console commands plugins add (the console's registry, adapted by the process wiring). */
export interface ConsoleCommands {
  /** Adds a command of one to three words; throws when the name is taken. Returns a function removing it. */
  add(command: {
    readonly name: string;
    readonly help: string;
    run(words: readonly string[]): Promise<string[]>;
  }): () => void;
}

/** Calls a plugin's `on-api`. */
export type PluginCaller = (
  plugin: string,
  method: string,
  args: readonly unknown[],
  options?: { nested?: boolean },
) => Promise<RequestOutcome>;

/** A handler's answer as console lines: strings as they are, other values as JSON. */
export function renderLines(value: unknown): string[] {
  if (typeof value === "string") return value.split("\n");
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  if (value === null || value === undefined) return [];
  return JSON.stringify(value, null, 2).split("\n");
}
