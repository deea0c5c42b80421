/**
 * Reading an admin request (spec 3 §4.7): ids and values are accepted the
 * ways both ancestors wrote them -- in the path (tphira), in the body or in
 * the query (lua-cpp and the spec) -- and under each spelling of a name.
 *
 * @module
 */

import type { Context } from "hono";
import { MAX_MESSAGE_CHARS } from "../../src/ops/mod.ts";
import { roomIdProblem } from "../../src/protocol/mod.ts";
import { fail } from "./respond.ts";
import type { LegacyEnv } from "./types.ts";

type C = Context<LegacyEnv>;

/** Request fields from the path, then the body, then the query. */
export class Fields {
  readonly #c: C;
  constructor(c: C) {
    this.#c = c;
  }
  /** The first of `names` present, or undefined. */
  get(...names: string[]): unknown {
    const body = this.#c.get("body") as Record<string, unknown>;
    for (const n of names) {
      const v = this.#c.req.param(n) ?? body[n] ?? this.#c.req.query(n);
      if (v !== undefined && v !== null && v !== "") return v;
    }
    return undefined;
  }
  /** A 32-bit integer from a number or decimal text, or null. */
  int(...names: string[]): number | null {
    const v = this.get(...names);
    const n = typeof v === "number" ? v : typeof v === "string" && /^-?\d{1,10}$/.test(v.trim()) ? Number(v) : NaN;
    return Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 ? n : null;
  }
  /** A boolean from `true`/`false`/`1`/`0`, or null. */
  bool(name: string): boolean | null {
    const v = this.get(name);
    if (typeof v === "boolean") return v;
    if (v === "true" || v === "1") return true;
    if (v === "false" || v === "0") return false;
    return null;
  }
  /** A valid room id under any of its spellings, or null. */
  roomId(): string | null {
    const v = this.get("roomId", "room_id", "roomid");
    return typeof v === "string" && roomIdProblem(v) === null ? v : null;
  }
}

/** The message of a chat or broadcast request, or the error answer. */
export function message(f: Fields): string | Response {
  const m = f.get("message");
  if (typeof m !== "string" || m.trim() === "") return fail(400, "bad-message");
  if ([...m].length > MAX_MESSAGE_CHARS) return fail(400, "message-too-long");
  return m;
}
