/**
 * How host functions are declared (spec 3 §4.6): each function of the world
 * names the capability it needs (null: none) and how its answer is shaped --
 * `api` for an `api-result`, `result` for a `result<_, string>`, `bool`,
 * `void` or a plain `value`. A function called without its capability never
 * traps the guest: `api` answers `error(...)`, `result` its `err`, `bool`
 * false and `void` does nothing (the refusal is logged).
 *
 * @module
 */

import type { Actor, Capability } from "../../ops/mod.ts";
import type { Clock } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import type { PluginFacilities } from "../facilities.ts";

/** The shape of a function's answer. */
export type AnswerKind = "api" | "result" | "bool" | "void" | "value";

/** What a host function runs with: the calling plugin and what it may reach. */
export interface HostContext {
  /** The plugin's id. */
  readonly id: string;
  /** The plugin as an operations actor (its whole capability set). */
  readonly actor: Actor & { readonly kind: "plugin" };
  /** True when the plugin has `capability`. */
  has(capability: Capability): boolean;
  /** Calls an operation as the plugin; rejects with an `OpsError`. */
  op(name: string, args: unknown): Promise<unknown>;
  readonly clock: Clock;
  /** The plugin's logger (field `plugin`). */
  readonly log: Logger;
  /** The plugin's own facilities: configuration, timers, TCP, HTTP, crypto, handlers. */
  readonly facilities: PluginFacilities;
}

/** One host function. */
export interface HostFunction {
  /** Capability needed; null = none. */
  readonly capability: Capability | null;
  readonly answer: AnswerKind;
  /** Runs it; throws to fail (an `OpsError` or `Error`: its message becomes the error string). */
  run(ctx: HostContext, args: readonly unknown[]): unknown;
}

/** Declares a host function. */
export function fn(
  capability: Capability | null,
  answer: AnswerKind,
  run: (ctx: HostContext, args: readonly unknown[]) => unknown,
): HostFunction {
  return { capability, answer, run };
}

/** Functions of one interface by camelCase name (as jco calls them). */
export type InterfaceTable = Readonly<Record<string, HostFunction>>;

/** A WIT `u32`/`u64` argument as a number; throws a RangeError for anything else. */
export function num(value: unknown, what: string): number {
  const n = typeof value === "bigint" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) throw new RangeError(`${what}: expected a number`);
  return n;
}

/** A WIT `string` argument. */
export function str(value: unknown, what: string): string {
  if (typeof value !== "string") throw new RangeError(`${what}: expected a string`);
  return value;
}

/** A WIT `option<T>` argument: undefined or null is none. */
export function opt<T>(value: unknown, read: (v: unknown) => T): T | null {
  return value === undefined || value === null ? null : read(value);
}

/** A WIT `list<u8>` argument. */
export function bytes(value: unknown, what: string): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value) && value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    return new Uint8Array(value);
  }
  throw new RangeError(`${what}: expected bytes`);
}
