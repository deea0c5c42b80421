/**
 * The small pieces `startApp` (`src/app.ts`) wires between the server and the
 * rest of the process: players online for the self-update, the durable
 * playtime, the shared chart prober, snapshots of persistent rooms and their
 * restoring at start, and plugin handlers as console commands.
 *
 * @module
 */

import type { ChartDurationCache } from "./chart/cache.ts";
import type { createRegistry } from "./console/mod.ts";
import type { Persistence } from "./persistence/mod.ts";
import type { ConsoleCommands } from "./plugins/registration_types.ts";
import type { Room } from "./room/mod.ts";
import {
  type ChartDurationResolver,
  type GameServer,
  type PlaytimeSource,
  restoreRoom,
  roomFromSnapshot,
  snapshotOf,
  snapshotProblem,
} from "./server/mod.ts";
import type { Upstream } from "./upstream/client.ts";
import type { UpstreamChart } from "./upstream/schemas.ts";
import type { Clock } from "./util/clock.ts";
import type { Logger } from "./util/log.ts";

/** Players online for the self-update's idle rule: real users, connected or about to reconnect (not benchmarks). */
export function playersOnline(server: GameServer): number {
  let n = 0;
  for (const id of server.core.users.keys()) if (id > 0) n++;
  return n;
}

/** The playtime of the durable store, in the server's terms (seconds). */
export function durablePlaytime(p: Persistence): PlaytimeSource {
  return {
    seconds: async (id) => (await p.playtime(id)) / 1000,
    top: async (n) =>
      (await p.topPlaytime(n)).map((r) => ({
        user_id: r.user_id,
        name: r.name ?? `#${r.user_id}`,
        seconds: r.total_ms / 1000,
      })),
  };
}

/**
 * Probes chart archives, sharing results between rooms for a few minutes (spec 3 §3.1 rule 5).
 * One cache per API endpoint: a room's endpoint override may serve other charts under the same ids.
 */
export function chartProber(clock: Clock): ChartDurationResolver {
  // The prober (archive reader, audio header parsers, unzip) is loaded with the first chart selected (issue 15).
  let modules: Promise<[typeof import("./chart/cache.ts"), typeof import("./chart/resolve.ts")]> | null = null;
  const caches = new Map<string, ChartDurationCache>();
  const cacheFor = (endpoint: string, Cache: typeof ChartDurationCache) => {
    let cache = caches.get(endpoint);
    if (!cache) {
      cache = new Cache({ clock });
      caches.set(endpoint, cache);
      // Bounded: the oldest endpoint's cache goes first.
      for (const old of caches.keys()) if (caches.size > 16) caches.delete(old);
    }
    return cache;
  };
  return async (chartId, upstream, meta) => {
    modules ??= Promise.all([import("./chart/cache.ts"), import("./chart/resolve.ts")]);
    const [{ ChartDurationCache }, { resolveChartDuration }] = await modules.catch((error) => {
      modules = null;
      throw error;
    });
    const api = upstream as Upstream;
    // Metadata the selection already fetched spares a second `/chart/{id}`.
    const chart = meta && "file" in meta ? meta as UpstreamChart : chartId;
    return (await resolveChartDuration(api, chart, { clock, cache: cacheFor(api.baseUrl, ChartDurationCache) })).audio
      .durationSecs;
  };
}

/** Keeps snapshots of persistent rooms: saved on change (debounced by the store), deleted with the room. */
export function snapshotKeeper(persistence: Persistence): (roomId: string, room: Room | null) => void {
  const stored = new Set<string>();
  return (roomId, room) => {
    if (room?.persistent) {
      stored.add(roomId);
      persistence.saveRoomSnapshot(roomId, snapshotOf(room));
    } else if (stored.delete(roomId)) persistence.deleteRoomSnapshot(roomId);
  };
}

/** Restores the persistent rooms saved in the store; a snapshot that cannot be restored fails the start when `required`. */
export async function restoreRooms(
  server: GameServer,
  persistence: Persistence,
  required: boolean,
  log: Logger,
): Promise<void> {
  let restored = 0;
  for (const row of await persistence.loadRoomSnapshots()) {
    const problem = snapshotProblem(row.payload);
    if (problem) {
      const message = `Cannot restore persistent room "${row.room_id}": ${problem}`;
      if (required) throw new Error(message);
      log.error(message);
      continue;
    }
    restoreRoom(server.core, roomFromSnapshot(row.payload as Parameters<typeof roomFromSnapshot>[0]));
    restored++;
  }
  if (restored) log.info("persistent rooms restored", { rooms: restored });
}

/** Plugin handlers as console commands (group `Plugins`), their words passed as the arguments. */
export function consoleCommands(registry: ReturnType<typeof createRegistry>): ConsoleCommands {
  return {
    add: (command) =>
      registry.register({
        name: command.name,
        args: [{ name: "args", kind: "words", optional: true }],
        help: command.help,
        group: "Plugins",
        run: (args) => command.run(args.words("args")),
      }),
  };
}
