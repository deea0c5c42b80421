/**
 * "Has this game account really played here?" for `user_manager`'s register
 * (issue 21): a player is known when the room log follower has seen them
 * (its id -> name map, in process, or the `user_info.json` it writes) or when
 * the game server lists them among the players who ever logged in
 * (`GET /api/players/all`, docs/http.md). The original only read the map
 * file (peers §5.1).
 *
 * @module
 */

import type { Logger } from "../util/log.ts";

/** What the directory knows about a game account. */
export interface PlayerLookup {
  readonly known: boolean;
  /** The player's name when a source had it. */
  readonly name: string | null;
}

/** Answers whether a game account has played on the server. */
export interface PlayerDirectory {
  lookup(gameId: number): Promise<PlayerLookup>;
}

/** Options of {@link playerDirectory}. */
export interface PlayerDirectoryOptions {
  /** The room follower's names in this process, when it runs here. */
  readonly names?: (id: number) => string | undefined;
  /** `user_info.json` to read when the follower is not in this process. */
  readonly userInfoPath?: string | null;
  /** Game server HTTP base (`http://host:12347`), or null to not ask it. */
  readonly gameServerUrl?: string | null;
  readonly fetch?: typeof fetch;
  readonly log: Logger;
  /** Per-request timeout for the game server, ms (default 3000). */
  readonly timeoutMs?: number;
}

/** Reads `{"<id>": "<name>"}`; an absent or broken file is an empty map. */
export async function readUserInfo(path: string): Promise<Map<number, string>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return new Map();
  }
  try {
    const value = JSON.parse(text) as unknown;
    const out = new Map<number, string>();
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (/^-?\d{1,10}$/.test(k) && typeof v === "string") out.set(Number(k), v);
      }
    }
    return out;
  } catch {
    return new Map();
  }
}

/** The directory over the configured sources, asked in order: follower, file, game server. */
export function playerDirectory(o: PlayerDirectoryOptions): PlayerDirectory {
  const fetchFn = o.fetch ?? fetch;
  return {
    async lookup(gameId) {
      const local = o.names?.(gameId);
      if (local !== undefined) return { known: true, name: local };
      if (o.userInfoPath) {
        const name = (await readUserInfo(o.userInfoPath)).get(gameId);
        if (name !== undefined) return { known: true, name };
      }
      if (!o.gameServerUrl) return { known: false, name: null };
      const signal = AbortSignal.timeout(o.timeoutMs ?? 3000);
      try {
        const res = await fetchFn(`${o.gameServerUrl}/api/players/all`, { signal });
        if (!res.ok) {
          await res.body?.cancel();
          throw new Error(`HTTP ${res.status}`);
        }
        const body = await res.json() as { players?: unknown };
        const known = Array.isArray(body.players) && body.players.includes(gameId);
        if (!known) return { known: false, name: null };
        // The name only while the player is online (docs/http.md); the profile refresh fills it in otherwise.
        const nameRes = await fetchFn(`${o.gameServerUrl}/api/user_name/${gameId}`, { signal });
        const name = nameRes.ok ? (await nameRes.text()).slice(0, 64) : null;
        if (!nameRes.ok) await nameRes.body?.cancel();
        return { known: true, name };
      } catch (error) {
        o.log.warn("cannot ask the game server about a player", {
          user: gameId,
          url: o.gameServerUrl,
          error: error instanceof Error ? error.message : String(error),
        });
        return { known: false, name: null };
      }
    },
  };
}
