/**
 * Everything legacy mode's parts share (one context built at start-up and
 * passed down): the operations layer they all act through, the server core
 * they read, the configuration, and legacy mode's own state -- the replay
 * switch, room bans, contests, admin-API lockouts, moderation events and the
 * replay store.
 *
 * @module
 */

import { join, resolve } from "node:path";
import type { Config } from "../src/config/mod.ts";
import type { ServerOps } from "../src/ops/mod.ts";
import { ReplayStore } from "../src/replay/mod.ts";
import type { ServerCore } from "../src/server/mod.ts";
import type { Clock } from "../src/util/clock.ts";
import type { Logger } from "../src/util/log.ts";
import { ModerationEvents } from "./events.ts";
import { Contests } from "./state/contests.ts";
import { AddressLockouts } from "./state/lockouts.ts";
import { RoomBans } from "./state/room_bans.ts";
import type { SettingsStore } from "./state/settings.ts";

/** Run-time switches of legacy mode (startup values from the configuration). */
export interface LegacySwitches {
  /** Record replays of rooms created from now on (spec 3 §2.3 `replay_enabled`). */
  replay: boolean;
}

/** What legacy mode's parts share. */
export interface LegacyContext {
  readonly ops: ServerOps;
  readonly core: ServerCore;
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Logger;
  readonly settings: SettingsStore;
  readonly switches: LegacySwitches;
  readonly roomBans: RoomBans;
  readonly contests: Contests;
  /** Addresses locked out of the admin API. */
  readonly lockouts: AddressLockouts;
  readonly moderation: ModerationEvents;
  readonly replays: ReplayStore;
  /** Writes one line to the operator's console only, never to the logs (one-time codes). */
  readonly console: (line: string) => void;
  /** The working directory (`admin_data.json`, `banned_users.json`). */
  readonly cwd: string;
}

/** What {@link createLegacyContext} needs. */
export interface LegacyContextOptions {
  readonly ops: ServerOps;
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Logger;
  readonly settings: SettingsStore;
  readonly console: (line: string) => void;
  readonly cwd?: string;
}

/** Builds the context. */
export function createLegacyContext(o: LegacyContextOptions): LegacyContext {
  return {
    ops: o.ops,
    core: o.ops.context.core,
    config: o.config,
    clock: o.clock,
    log: o.log,
    settings: o.settings,
    switches: { replay: o.config.replay_enabled },
    roomBans: new RoomBans(o.settings),
    contests: new Contests(),
    lockouts: new AddressLockouts(o.clock),
    moderation: new ModerationEvents(),
    replays: new ReplayStore(join(resolve(o.config.data_dir), "record")),
    console: o.console,
    cwd: o.cwd ?? Deno.cwd(),
  };
}
