/**
 * Game accounts through the upstream Phira API: resolving the
 * `game_id_or_username` of a registration (an id, or a name that must match
 * exactly one account), and fetching the public profile the backend keeps
 * (`game_username`, `game_rks`, `game_avatar`). Upstream failures become
 * `upstream_error` (502) with a message that names the API, never a stack
 * or exception text (the original answered 500 with `repr(e)`).
 *
 * @module
 */

import { type Upstream, UpstreamError, type UpstreamProfile } from "../upstream/mod.ts";
import { ApiError } from "./errors.ts";
import type { GameProfile } from "./store.ts";

/** Reads game accounts. */
export interface GameDirectory {
  /** The profile of `id`, or null when there is no such account. */
  byId(id: number): Promise<GameProfile | null>;
  /** Profiles whose name matches `name` as the API searches (first page). */
  search(name: string): Promise<GameProfile[]>;
}

function toGame(p: UpstreamProfile): GameProfile {
  return { gameId: p.id, name: p.name, rks: p.rks, avatar: p.avatar };
}

/** The upstream API as a {@link GameDirectory}; failures are {@link UpstreamError}s. */
export function upstreamDirectory(upstream: Upstream, budgetMs = 8000): GameDirectory {
  return {
    async byId(id) {
      try {
        return toGame(await upstream.user(id, { budgetMs }));
      } catch (error) {
        if (error instanceof UpstreamError && error.status === 404) return null;
        throw error;
      }
    },
    async search(name) {
      return (await upstream.searchUsers(name, 20, { budgetMs })).results.map(toGame);
    },
  };
}

const MAX_ID = 2147483647;

/** Why a `game_id_or_username` cannot name an account, or null. */
export function gameAccountTextProblem(text: string): string | null {
  const t = text.trim();
  if (t === "") return "game_id_or_username must not be empty";
  if (t.length > 64) return "game_id_or_username must have at most 64 characters";
  if (/^\d+$/.test(t) && (Number(t) < 1 || Number(t) > MAX_ID)) return `game account id ${t} is out of range`;
  return null;
}

/** Turns an upstream failure into the API's 502. */
export function upstreamFailure(error: unknown): ApiError {
  const detail = error instanceof UpstreamError ? error.reason : "unexpected failure";
  return new ApiError("upstream_error", `the game API did not answer as expected (${detail}); try again later`);
}

/**
 * Resolves a registration's `game_id_or_username`: digits are an account id
 * (it must exist); anything else is a name that must match exactly one
 * account (case-sensitively first, then case-insensitively).
 */
export async function resolveGameAccount(dir: GameDirectory, text: string): Promise<GameProfile> {
  const problem = gameAccountTextProblem(text);
  if (problem) throw new ApiError("invalid_game_account", problem);
  const t = text.trim();
  try {
    if (/^\d+$/.test(t)) {
      const profile = await dir.byId(Number(t));
      if (!profile) throw new ApiError("game_account_not_found", `there is no game account with id ${t}`);
      return profile;
    }
    const found = await dir.search(t);
    const exact = found.filter((p) => p.name === t);
    const folded = exact.length ? exact : found.filter((p) => p.name?.toLowerCase() === t.toLowerCase());
    if (folded.length === 1) return folded[0]!;
    if (folded.length === 0) throw new ApiError("game_account_not_found", `there is no game account named "${t}"`);
    throw new ApiError(
      "game_account_not_found",
      `several game accounts are named "${t}"; give the account id instead`,
    );
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw upstreamFailure(error);
  }
}
