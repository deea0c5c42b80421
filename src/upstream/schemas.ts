/**
 * Shapes of the upstream Phira API (protocol.md §6), validated with zod.
 * Only what Chorus needs is required; optional display fields with a wrong
 * type are dropped rather than failing the call.
 *
 * @module
 */

import * as z from "../util/zod.ts";

const i32 = z.int().check(z.gte(-2147483648), z.lte(2147483647));

/** Account behind a token (`GET /me`). */
export interface UpstreamUser {
  id: number;
  name: string;
  /** Locale such as `zh-CN` or `en-US`; selects the localization. */
  language: string;
}

/** Chart metadata (`GET /chart/{id}`); keys are camelCase as upstream sends them. */
export interface UpstreamChart {
  id: number;
  name: string;
  /** URL of the chart archive (zip), or `null` when absent. */
  file: string | null;
  level?: string;
  difficulty?: number;
  charter?: string;
  composer?: string;
  illustrator?: string;
  description?: string;
  rating?: number | null;
  ranked?: boolean;
  reviewed?: boolean;
  stable?: boolean;
  uploader?: number;
  illustration?: string;
  preview?: string;
  tags?: string[];
  created?: string;
  updated?: string;
  /** Changes only when the chart file changes (extended.md §5.5 uses it as a cache key). */
  chartUpdated?: string;
}

/** A play record (`GET /record/{id}`); keys are snake_case as upstream sends them. */
export interface UpstreamRecord {
  id: number;
  player: number;
  score: number;
  perfect: number;
  good: number;
  bad: number;
  miss: number;
  max_combo: number;
  /** 0..1 */
  accuracy: number;
  full_combo: boolean;
  /** Optional upstream (the official server requires it; we do not): `null` when absent. */
  std: number | null;
  /** Optional upstream: `null` when absent. */
  std_score: number | null;
}

/** A public game account (`GET /user/{id}`, entries of `GET /user?search=`): what the account backend and the companion user manager keep. */
export interface UpstreamProfile {
  id: number;
  name: string;
  /** Avatar URL, or `null`. */
  avatar: string | null;
  /** Ranking score, or `null` when absent. */
  rks: number | null;
}

/** The account's own public profile (`GET /me` read for the fields a spectator page shows; spec 1 §2.2). */
export interface UpstreamAccount extends UpstreamProfile {
  /** Registration time as upstream sends it (RFC 3339), or `null`. */
  joined: string | null;
  /** Last login time as upstream sends it (RFC 3339), or `null`. */
  lastLogin: string | null;
}

/** One page of `GET /user?search=...` (the API's paged result: `count` matches in all, `results` of this page). */
export interface UpstreamProfilePage {
  count: number;
  results: UpstreamProfile[];
}

/** Reply of `POST /login`. */
export interface UpstreamLogin {
  id: number;
  token: string;
  refreshToken?: string;
  /** As upstream sends it (an RFC 3339 string on the official API). */
  expireAt?: string | number;
}

/** Validates `/me`. */
export const userSchema = z.object({ id: i32, name: z.string(), language: z.string() });

const optional = <T extends z.ZodMiniType>(t: T) => z.catch(z.optional(t), undefined);

/** Validates `/chart/{id}`. */
export const chartSchema = z.object({
  id: i32,
  name: z.string(),
  file: z.catch(z.optional(z.nullable(z.string())), null),
  level: optional(z.string()),
  difficulty: optional(z.number()),
  charter: optional(z.string()),
  composer: optional(z.string()),
  illustrator: optional(z.string()),
  description: optional(z.string()),
  rating: optional(z.nullable(z.number())),
  ranked: optional(z.boolean()),
  reviewed: optional(z.boolean()),
  stable: optional(z.boolean()),
  uploader: optional(i32),
  illustration: optional(z.string()),
  preview: optional(z.string()),
  tags: optional(z.array(z.string())),
  created: optional(z.string()),
  updated: optional(z.string()),
  chartUpdated: optional(z.string()),
});

/** Validates `/record/{id}`. */
export const recordSchema = z.object({
  id: i32,
  player: i32,
  score: i32,
  perfect: i32,
  good: i32,
  bad: i32,
  miss: i32,
  max_combo: i32,
  accuracy: z.number().check(z.gte(0), z.lte(1)),
  full_combo: z.boolean(),
  std: z.optional(z.nullable(z.number())),
  std_score: z.optional(z.nullable(z.number())),
});

/** Validates `/user/{id}`; display fields of a wrong type are dropped (`null`). */
export const profileSchema = z.object({
  id: i32,
  name: z.string(),
  avatar: z.catch(z.optional(z.nullable(z.string())), null),
  rks: z.catch(z.optional(z.nullable(z.number())), null),
});

/** Validates a page of `/user?search=`. */
export const profilePageSchema = z.object({ count: z.int().check(z.gte(0)), results: z.array(profileSchema) });

/** Normalizes a parsed profile (absent `avatar`/`rks` become `null`). */
export function toProfile(p: z.output<typeof profileSchema>): UpstreamProfile {
  return { id: p.id, name: p.name, avatar: p.avatar ?? null, rks: p.rks ?? null };
}

/** Validates `/me` read for its display fields: a profile plus the account's registration and last login times. */
export const accountSchema = z.extend(profileSchema, {
  joined: z.catch(z.optional(z.nullable(z.string())), null),
  last_login: z.catch(z.optional(z.nullable(z.string())), null),
});

/** Normalizes a parsed account profile (absent display fields become `null`). */
export function toAccount(p: z.output<typeof accountSchema>): UpstreamAccount {
  return { ...toProfile(p), joined: p.joined ?? null, lastLogin: p.last_login ?? null };
}

/** Validates `/login`. */
export const loginSchema = z.object({
  id: i32,
  token: z.string().check(z.minLength(1)),
  refreshToken: z.optional(z.string()),
  expireAt: z.optional(z.union([z.string(), z.number()])),
});

/** Copies `obj` without its `undefined` values (for exactOptionalPropertyTypes). */
export function compact<T extends object>(obj: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]: Exclude<T[K], undefined> };
}

/** Normalizes a parsed chart. */
export function toChart(c: z.output<typeof chartSchema>): UpstreamChart {
  return { ...compact(c), file: c.file ?? null };
}

/** Normalizes a parsed record (absent `std`/`std_score` become `null`). */
export function toRecord(r: z.output<typeof recordSchema>): UpstreamRecord {
  return { ...r, std: r.std ?? null, std_score: r.std_score ?? null };
}

/** `player: expected number` -- the first validation issue, short. */
export function describeIssues(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "does not match the expected shape";
  const path = issue.path.map(String).join(".") || "body";
  const what = issue.code === "invalid_type" ? `expected ${issue.expected}` : issue.message;
  return `${path}: ${what}`;
}
