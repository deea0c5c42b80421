/**
 * The account backend inside `deno task start` (configuration section
 * `accounts`, `enabled: true`): it listens on its own port, keeps its tables
 * in the game server's database location (`accounts.sqlite` in `data_dir`,
 * or `database_url`), and takes rooms straight from the game server's event
 * bus -- no room-monitor connection, so it does not occupy the server's one
 * room-monitor slot. A failure to start is logged and the game server runs
 * on without it (like the local socket).
 *
 * @module
 */

import type { Config } from "../config/mod.ts";
import { openDb } from "../db/mod.ts";
import type { EventBus } from "../events/mod.ts";
import { playingUsers, roomData } from "../room/mod.ts";
import type { GameServer } from "../server/mod.ts";
import type { Upstream } from "../upstream/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { upstreamDirectory } from "./game_accounts.ts";
import { WorkerHasher } from "./password_pool.ts";
import type { PasswordHasher } from "./passwords.ts";
import { BusRoomSource, type LiveRoom } from "./room_source_bus.ts";
import { ROOT_PASSWORD_ENV } from "./seed.ts";
import { type AccountsService, startAccounts } from "./service.ts";

/** What the game server hands over. */
export interface MountDeps {
  readonly config: Pick<Config, "accounts" | "data_dir" | "database_url">;
  readonly server: GameServer;
  readonly bus: EventBus;
  readonly upstream: Upstream;
  readonly clock: Clock;
  readonly log: Logger;
  /** Default: Argon2id in a worker with production parameters. */
  readonly hasher?: PasswordHasher;
  /** Default: `Deno.env.get`. */
  readonly env?: (name: string) => string | undefined;
}

/** The game server's public rooms now. */
function liveRooms(server: GameServer): LiveRoom[] {
  const out: LiveRoom[] = [];
  for (const room of server.core.rooms.values()) {
    if (!room.hidden) out.push({ name: room.id, data: roomData(room), playing: playingUsers(room) });
  }
  return out;
}

/** Starts the mounted backend when `accounts.enabled`; null when off or when it failed to start (logged). */
export async function mountAccounts(d: MountDeps): Promise<AccountsService | null> {
  const a = d.config.accounts;
  if (!a.enabled) return null;
  const log = d.log.child({ role: "accounts" });
  const hasher = d.hasher ?? new WorkerHasher({ log });
  try {
    const db = await openDb({
      url: d.config.database_url ?? undefined,
      dataDir: d.config.data_dir,
      file: "accounts.sqlite",
    });
    const source = new BusRoomSource({ bus: d.bus, log, rooms: () => liveRooms(d.server) });
    return await startAccounts({
      db,
      ownsDb: true,
      source,
      games: upstreamDirectory(d.upstream),
      hasher,
      clock: d.clock,
      log,
      rootPassword: (d.env ?? ((n) => Deno.env.get(n)))(ROOT_PASSWORD_ENV),
      listen: { hostname: a.bind_address, port: a.port, trustProxy: a.trust_proxy },
      allowedOrigins: a.allowed_origins,
      cookieSecure: a.cookie_secure,
    }).catch(async (error) => {
      await source.close();
      await db.close();
      throw error;
    });
  } catch (error) {
    hasher.close();
    log.error("account backend did not start", { error: error instanceof Error ? error.message : String(error) });
    return null;
  }
}
