/**
 * Configuration check and reload (spec 3 §2.3, §4.2 `check-config`,
 * `config reload`; §4.5 `server.config_reload`): the sources are read and
 * validated again; a reload applies what the running server reads at each
 * use and names the rest. Runtime switches keep their run-time values.
 *
 * @module
 */

import { changedKeys, ConfigError, type LoadedConfig, renderEffectiveConfig } from "../config/mod.ts";
import type { ServerCore } from "../server/mod.ts";
import type { LogHub } from "../util/log.ts";
import type { ConfigAccess } from "./deps.ts";
import { OpsError } from "./errors.ts";

/** Keys the running server reads at each use, so a reload applies them (spec 3 §2.3). */
const LIVE_KEYS = new Set([
  "server_name",
  "monitors",
  "chat_enabled",
  "cli_enabled",
  "max_rooms",
  "max_users_per_room",
  "max_sessions",
  "max_pending_auth",
  "max_pending_auth_per_ip",
  "play_history_cache_size",
  "chat_history_limit",
  "ready_countdown_secs",
  "playing_timeout_offset_secs",
  "heartbeat_timeout",
  "auth_timeout",
  "auth_budget_ms",
  "record_budget_ms",
  "dangle_grace",
  "playing_reconnect_grace",
  "graceful_shutdown_timeout",
  "welcome.enabled",
  "welcome.show_time",
  "welcome.messages",
]);

/** What `config reload` did. */
export interface ReloadReport {
  readonly file: string | null;
  /** Keys whose value changed in the sources. */
  readonly changed: readonly string[];
  /** Changed keys now in effect. */
  readonly applied: readonly string[];
  /** Changed keys that take effect at the next start. */
  readonly restart_required: readonly string[];
  /** Runtime switches and other notes. */
  readonly notes: readonly string[];
}

/** What `check-config` found (applies nothing). */
export interface ConfigCheck {
  readonly valid: true;
  readonly file: string | null;
  /** The effective configuration, one `key = value (source)` line each (secrets masked). */
  readonly effective: readonly string[];
  /** Keys that differ from the running configuration. */
  readonly differs: readonly string[];
  readonly active: { readonly sessions: number; readonly users_online: number; readonly rooms: number };
}

/** `on` / `off`. */
export function onOff(value: boolean): string {
  return value ? "on" : "off";
}

/** The configuration as the process loaded it, re-readable. */
export class ConfigControl {
  readonly #access: ConfigAccess | undefined;
  readonly #core: () => ServerCore;
  readonly #logs: LogHub | undefined;
  #loaded: LoadedConfig | null;

  constructor(access: ConfigAccess | undefined, core: () => ServerCore, logs: LogHub | undefined) {
    this.#access = access;
    this.#core = core;
    this.#logs = logs;
    this.#loaded = access?.initial ?? null;
  }

  #config(): { access: ConfigAccess; loaded: LoadedConfig } {
    if (!this.#access || !this.#loaded) {
      throw new OpsError("UNAVAILABLE", "configuration access is not available in this process");
    }
    return { access: this.#access, loaded: this.#loaded };
  }

  async #load(): Promise<LoadedConfig> {
    try {
      return await this.#config().access.load();
    } catch (error) {
      if (error instanceof ConfigError) {
        throw new OpsError("INVALID_ARGUMENT", `configuration is invalid; nothing changed: ${error.message}`);
      }
      throw error;
    }
  }

  /** Validates the sources again and shows the result with live figures; applies nothing. */
  async check(): Promise<ConfigCheck> {
    const { loaded } = this.#config();
    const next = await this.#load();
    const core = this.#core();
    return {
      valid: true,
      file: next.file,
      effective: renderEffectiveConfig(next),
      differs: changedKeys(loaded.config, next.config),
      active: { sessions: core.sessions.size, users_online: core.onlineUsers().length, rooms: core.rooms.size },
    };
  }

  /** Applies what can change at run time and names the rest. */
  async reload(): Promise<ReloadReport> {
    const { loaded } = this.#config();
    const next = await this.#load();
    const core = this.#core();
    const changed = changedKeys(loaded.config, next.config);
    const restartByCore = new Set(core.reloadConfig(next.config));
    this.#loaded = next;
    const applied: string[] = [];
    const restart: string[] = [];
    const notes: string[] = [];
    for (const key of changed) {
      if (key === "log_level" && this.#logs) {
        this.#logs.setLevel(next.config.log_level);
        applied.push(key);
      } else if (key === "admin_game_ids") {
        // The file's list replaces the runtime list only when the file changed it.
        core.adminIds.clear();
        for (const id of next.config.admin_game_ids) core.adminIds.add(id);
        applied.push(key);
      } else if (key === "room_creation_enabled") {
        notes.push(
          `room_creation_enabled applies at startup only; the runtime switch stays ${
            onOff(core.switches.roomCreation)
          } (use roomcreation on|off)`,
        );
      } else if (key === "update.auto") {
        notes.push("update.auto applies at startup only; use update auto on|off at run time");
      } else if (LIVE_KEYS.has(key) && !restartByCore.has(key)) applied.push(key);
      else restart.push(key);
    }
    return { file: next.file, changed, applied, restart_required: restart, notes };
  }
}
