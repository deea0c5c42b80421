/**
 * Argument schemas shared by the operations, with the error wording every
 * surface shows (`user_id: expected an integer user id`).
 *
 * @module
 */

import { z } from "zod";
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
    z.string(req("a room id")).refine((v) => roomIdProblem(v) === null, {
      error: "expected a room id (1-20 letters, digits, - or _)",
    }),
  /** A 32-bit signed user id. */
  userId: () =>
    z.number(req(I32)).int({ error: `expected ${I32}` }).min(-2147483648, { error: `expected ${I32}` }).max(
      2147483647,
      { error: `expected ${I32}` },
    ),
  bool: () => z.boolean(req("true or false")),
  /** A non-empty string of at most `max` characters. */
  text: (max: number) =>
    z.string(req("a string")).min(1, { error: "must not be empty" }).max(max, {
      error: `must be at most ${max} characters`,
    }),
  /** An optional reason of at most 200 characters. */
  reason: () => z.string().max(200, { error: "must be at most 200 characters" }).optional(),
  /** An integer in 1..max, `fallback` when absent. */
  limit: (fallback: number, max: number) =>
    z.number(req("an integer")).int({ error: "expected an integer" }).min(1, { error: `expected 1 to ${max}` }).max(
      max,
      { error: `expected 1 to ${max}` },
    ).default(fallback),
  /** A system message within the chat limit. */
  message: () => p.text(MAX_MESSAGE_CHARS),
};
