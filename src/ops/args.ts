/**
 * Arguments of an operation come in two forms: named (`{room_id, locked}`,
 * OpenUDS `params`, HTTP bodies, the console's `key=value`) and positional
 * (`["lobby", true]`, a plugin's `api-call(method, list<json-value>)`,
 * extended.md §2.18). Positional values map onto the parameters in declared
 * order; a `null` stands for an absent optional argument (WIT `option`
 * none) unless the parameter itself accepts null. A single object whose
 * keys are all parameter names is the named form (`api-call("rooms.list",
 * [{"filters": ...}])`, the PMP convention).
 *
 * @module
 */

import { type ArgumentIssue, OpsError } from "./errors.ts";
import type { Operation } from "./op.ts";

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The named form of `args` for `op`; other values are left for validation to refuse. */
export function namedArgs(op: Operation<never>, args: unknown): unknown {
  if (args === undefined || args === null) return {};
  if (!Array.isArray(args)) return args;
  const names = op.positional;
  const [only] = args;
  if (args.length === 1 && isPlainObject(only) && Object.keys(only).every((k) => names.includes(k))) {
    // Keys that are not all parameter names make it a positional value (`rooms.list [{"state": ...}]` = filters).
    return only;
  }
  if (args.length > names.length) {
    throw new OpsError(
      "INVALID_ARGUMENT",
      `${op.name} takes at most ${names.length} argument(s)${
        names.length ? ` (${names.join(", ")})` : ""
      }, got ${args.length}`,
      { issues: [{ path: "", message: `expected at most ${names.length} arguments` }] },
    );
  }
  const out: Record<string, unknown> = {};
  args.forEach((value, i) => {
    const name = names[i]!;
    if (value === null && !op.schema.shape[name]!.safeParse(null).success) return;
    out[name] = value;
  });
  return out;
}

/** Validates `args` (either form); throws `INVALID_ARGUMENT` naming every problem. */
export function validateArgs(op: Operation<never>, args: unknown): unknown {
  const parsed = op.schema.safeParse(namedArgs(op, args));
  if (parsed.success) return parsed.data;
  const issues: ArgumentIssue[] = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  // The OpenUDS wording (docs/openuds.md): `room_id: required; locked: expected true or false`.
  const message = issues.map((i) => `${i.path || "params"}: ${i.message}`).join("; ");
  throw new OpsError("INVALID_ARGUMENT", message, { issues });
}
