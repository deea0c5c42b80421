/**
 * Validation of user data sent to `user_manager` (spec 2 §4.4, §5.3): user
 * names, passwords and the `changes` object of `/info_changer`,
 * `/admin/update` and `/admin/batch-update`. The administrator may change
 * the non-permission fields; `password`, `admin` and `dev` need the super
 * administrator (peers §5.1 "Insufficient privileges to modify <field>").
 * Field names follow spec 2 §2.2 (`game_*`); the original's `phira_*`
 * spellings are accepted as aliases so its scripts keep working.
 *
 * @module
 */

import { hasControlChars } from "../util/control_chars.ts";
import { MAX_PASSWORD_LENGTH, type Role } from "./passwords.ts";
import type { UserPatch } from "./user_store.ts";
import { positiveId } from "./http_util.ts";

/** Spec 2 §8: new passwords have at least 6 characters. */
export const MIN_PASSWORD_LENGTH = 6;

/** Longest user name. */
export const MAX_NAME_LENGTH = 32;

/** A refused input: HTTP status and the message the page shows. */
export interface Refusal {
  readonly status: number;
  readonly message: string;
}

/** The problem with a user name, or null when it is acceptable. */
export function nameProblem(name: unknown): string | null {
  if (typeof name !== "string" || name.trim() === "") return "Username is required";
  if (name !== name.trim()) return "Username must not start or end with spaces";
  if ([...name].length > MAX_NAME_LENGTH) return `Username must be at most ${MAX_NAME_LENGTH} characters`;
  if (hasControlChars(name)) return "Username must not contain control characters";
  return null;
}

/** The problem with a new password, or null. */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== "string") return "Password is required";
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    return `Password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  }
  if (password.length > MAX_PASSWORD_LENGTH) return `Password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}

/** Canonical field names and their accepted spellings. */
const ALIASES: Readonly<Record<string, keyof UserPatch>> = {
  name: "name",
  game_id: "game_id",
  phira_id: "game_id",
  game_name: "game_name",
  phira_name: "game_name",
  game_rks: "game_rks",
  phira_rks: "game_rks",
  image_url: "image_url",
  password: "password",
  admin: "admin",
  dev: "dev",
};

/** Fields only the super administrator may change. */
const SUPER_ONLY: ReadonlySet<keyof UserPatch> = new Set(["password", "admin", "dev"]);

/** Fields that make no sense for many users at once. */
const NOT_BATCH: ReadonlySet<keyof UserPatch> = new Set(["name", "game_id"]);

function flag(value: unknown): "yes" | "no" | null {
  if (value === "yes" || value === true) return "yes";
  if (value === "no" || value === false) return "no";
  return null;
}

function fieldValue(field: keyof UserPatch, value: unknown): UserPatch[keyof UserPatch] | Refusal {
  const bad = (message: string): Refusal => ({ status: 400, message });
  switch (field) {
    case "name": {
      const problem = nameProblem(value);
      return problem ? bad(problem) : value as string;
    }
    case "game_id": {
      const id = positiveId(value);
      return id === null ? bad("game_id must be a positive integer") : id;
    }
    case "game_name":
      return typeof value === "string" && value.length <= 64 && !hasControlChars(value)
        ? value
        : bad("game_name must be text of at most 64 characters");
    case "game_rks":
      return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 100
        ? value
        : bad("game_rks must be a number between 0 and 100");
    case "image_url":
      return typeof value === "string" && value.length <= 512 && (value === "" || /^https?:\/\/\S+$/.test(value))
        ? value
        : bad("image_url must be empty or an http(s) URL");
    case "password": {
      const problem = passwordProblem(value);
      return problem ? bad(problem) : value as string;
    }
    case "admin":
    case "dev": {
      const v = flag(value);
      return v ?? bad(`${field} must be "yes" or "no"`);
    }
  }
}

/**
 * Validates `changes` for `role`: the patch to apply, or the refusal. The
 * password, when changed, is still plain here; the caller hashes it.
 */
export function parseChanges(changes: unknown, role: Role, batch = false): UserPatch | Refusal {
  if (typeof changes !== "object" || changes === null || Array.isArray(changes)) {
    return { status: 400, message: "changes must be an object" };
  }
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) {
    const field = ALIASES[key];
    if (!field) return { status: 400, message: `Unknown field ${key}` };
    if (field in patch) return { status: 400, message: `Field ${field} given twice` };
    if (SUPER_ONLY.has(field) && role !== "super") {
      return { status: 403, message: `Insufficient privileges to modify ${field}` };
    }
    if (batch && NOT_BATCH.has(field)) return { status: 400, message: `Field ${field} cannot be changed in a batch` };
    const v = fieldValue(field, value);
    if (typeof v === "object" && v !== null) return v;
    patch[field] = v;
  }
  if (Object.keys(patch).length === 0) return { status: 400, message: "No changes" };
  return patch as UserPatch;
}

/** Whether a parse result is a refusal. */
export function isRefusal(v: unknown): v is Refusal {
  return typeof v === "object" && v !== null && "status" in v && "message" in v;
}
