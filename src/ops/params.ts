/**
 * Argument schemas shared by the operations, with the error wording every
 * surface shows (`user_id: expected an integer user id`).
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { roomIdProblem } from "../protocol/mod.ts";

/** Longest chat line and broadcast (spec 3 §8). */
export const MAX_MESSAGE_CHARS = 200;

/** `required` when absent, else `expected <what>`. */
function req(what: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? "required" : `expected ${what}`) };
}

const I32 = "an integer user id";

/** Parameter schemas. */
export const p = {
  /** A room id (spec 3 §8: 1-20 letters, digits, `-`, `_`). */
  roomId: () =>
    z.string(req("a room id")).check(z.refine((v) => roomIdProblem(v) === null, {
      error: "expected a room id (1-20 letters, digits, - or _)",
    })),
  /** A 32-bit signed user id. */
  userId: () =>
    z.number(req(I32)).check(
      z.int({ error: `expected ${I32}` }),
      z.gte(-2147483648, { error: `expected ${I32}` }),
      z.lte(2147483647, { error: `expected ${I32}` }),
    ),
  bool: () => z.boolean(req("true or false")),
  /** A non-empty string of at most `max` characters. */
  text: (max: number) =>
    z.string(req("a string")).check(
      z.minLength(1, { error: "must not be empty" }),
      z.maxLength(max, { error: `must be at most ${max} characters` }),
    ),
  /** An optional reason of at most 200 characters. */
  reason: () => z.optional(z.string().check(z.maxLength(200, { error: "must be at most 200 characters" }))),
  /** An integer in 1..max, `fallback` when absent. */
  limit: (fallback: number, max: number) =>
    z._default(
      z.number(req("an integer")).check(
        z.int({ error: "expected an integer" }),
        z.gte(1, { error: `expected 1 to ${max}` }),
        z.lte(max, { error: `expected 1 to ${max}` }),
      ),
      fallback,
    ),
  /** A system message within the chat limit. */
  message: () => p.text(MAX_MESSAGE_CHARS),
};
