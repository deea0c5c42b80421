/**
 * The OpenUDS command table's building blocks (spec 3 §4.5): each command
 * is declared once with a zod schema of its `params` and a handler returning
 * the response `data`. Failures throw {@link UdsError} or the console's
 * `CommandError`; both become `{ok: false, error: {code, message}}`.
 *
 * @module
 */

import { z } from "zod";
import { CommandError, type ConsoleRegistry, type ConsoleServices } from "../console/mod.ts";
import { roomIdProblem } from "../protocol/mod.ts";
import type { LogHub } from "../util/log.ts";
import { UdsError, type UdsErrorCode } from "./errors.ts";

/** The `openuds` configuration section (spec 3 §4.5). */
export interface OpenUdsConfig {
  readonly enabled: boolean;
  readonly socket_path: string;
  readonly auth_token: string;
  readonly max_connections: number;
  readonly event_buffer_size: number;
  readonly heartbeat_interval_secs: number;
  readonly approval_ttl_secs: number;
}

/** What a command handler can reach. */
export interface UdsCall {
  readonly services: ConsoleServices;
  readonly registry: ConsoleRegistry;
  readonly logs: LogHub | undefined;
  readonly config: OpenUdsConfig;
  /** This connection's session id. */
  readonly sessionId: string;
  /** Authenticated connections now. */
  connections(): number;
  /** Runs `fn` once the response has been written (`server.shutdown`). */
  after(fn: () => void): void;
}

/** One command. */
export interface UdsCommand {
  readonly name: string;
  readonly params: z.ZodType;
  run(params: never, call: UdsCall): unknown;
}

/** Declares a command whose `params` object has `shape`. */
export function command<S extends z.ZodRawShape>(
  name: string,
  shape: S,
  run: (params: z.output<z.ZodObject<S>>, call: UdsCall) => unknown,
): UdsCommand {
  return { name, params: z.object(shape), run: run as UdsCommand["run"] };
}

/** `required` when absent, else `expected <what>`. */
function req(what: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? "required" : `expected ${what}`) };
}

const I32 = "an integer user id";

/** Parameter schemas. */
export const p = {
  roomId: () =>
    z.string(req("a room id")).refine((v) => roomIdProblem(v) === null, {
      error: "expected a room id (1-20 letters, digits, - or _)",
    }),
  userId: () =>
    z.number(req(I32)).int({ error: `expected ${I32}` }).min(-2147483648, { error: `expected ${I32}` }).max(
      2147483647,
      { error: `expected ${I32}` },
    ),
  bool: () => z.boolean(req("true or false")),
  text: (max: number) =>
    z.string(req("a string")).min(1, { error: "must not be empty" }).max(max, {
      error: `must be at most ${max} characters`,
    }),
  limit: (fallback: number, max: number) =>
    z.number(req("an integer")).int({ error: "expected an integer" }).min(1, { error: `expected 1 to ${max}` }).max(
      max,
      { error: `expected 1 to ${max}` },
    ).default(fallback),
};

/** Outcome of one command. */
export type UdsOutcome =
  | { readonly ok: true; readonly data: unknown }
  | {
    readonly ok: false;
    readonly code: UdsErrorCode;
    readonly message: string;
    readonly extra?: Readonly<Record<string, unknown>>;
  };

/** Validates `params` and runs the command; never throws. */
export async function runCommand(cmd: UdsCommand, params: unknown, call: UdsCall): Promise<UdsOutcome> {
  const parsed = cmd.params.safeParse(params ?? {});
  if (!parsed.success) {
    const message = parsed.error.issues.map((i) => `${i.path.join(".") || "params"}: ${i.message}`).join("; ");
    return { ok: false, code: "INVALID_ARGUMENT", message };
  }
  try {
    const data = await cmd.run(parsed.data as never, call);
    return { ok: true, data: data ?? null };
  } catch (error) {
    if (error instanceof UdsError) {
      return { ok: false, code: error.code, message: error.message, ...(error.extra ? { extra: error.extra } : {}) };
    }
    if (error instanceof CommandError) return { ok: false, code: error.code, message: error.message };
    call.services.core.ctx.log.error("OpenUDS command failed", { command: cmd.name, error: String(error) });
    return {
      ok: false,
      code: "INTERNAL",
      message: `internal error: ${error instanceof Error ? error.message : error}`,
    };
  }
}
