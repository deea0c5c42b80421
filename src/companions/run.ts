/**
 * Starts the companion services of one configuration (spec 2 §4.4) in one
 * process: the shared store (opened only when a service that needs it
 * runs), each enabled service on its own port, and the site that serves
 * the pages and routes their calls. Every listener binds to loopback unless
 * configured otherwise. {@link CompanionsHandle.close} stops everything in
 * reverse order and writes what is pending.
 *
 * @module
 */

import type { Hono } from "hono";
import { pathToFileURL } from "node:url";
import { type Db, openDb } from "../db/mod.ts";
import { Upstream } from "../upstream/mod.ts";
import { type Clock, SystemClock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { AuditStore, migrateAudit } from "./audit_store.ts";
import { CommandService } from "./command_service.ts";
import { bindAddressOf, type CompanionsConfig, servedFilePath, type ServiceName, userInfoPath } from "./config.ts";
import { fileServiceApp } from "./file_service.ts";
import { type CompanionEnv, failure } from "./http_util.ts";
import { argon2Hasher, type PasswordHasher } from "./passwords.ts";
import { playerDirectory } from "./players.ts";
import { ProfileRefresher } from "./profile_refresh.ts";
import { RoomService } from "./room_service.ts";
import { siteApp } from "./site.ts";
import { StatsPoller } from "./stats_poller.ts";
import { migrateStats, StatsStore } from "./stats_store.ts";
import { userManagerApp } from "./user_manager.ts";
import { migrateUsers, UserStore } from "./user_store.ts";
import { programFile } from "../util/program_files.ts";

/** Injected seams (tests); production uses the defaults. */
export interface CompanionsDeps {
  readonly log: Logger;
  readonly clock?: Clock;
  readonly hasher?: PasswordHasher;
  /** The game API client (default: one for `game_api_endpoint`). */
  readonly upstream?: Upstream;
  /** `fetch` of the poller and the player directory. */
  readonly fetch?: typeof fetch;
  /** Environment lookup (`FILE_PATH`). */
  readonly env?: (name: string) => string | undefined;
  /** Directory of the pages (default `static/site/` of this checkout). */
  readonly staticDir?: URL;
}

/** The running services. */
export interface CompanionsHandle {
  /** Bound port of each running service. */
  readonly ports: Partial<Record<ServiceName, number>>;
  readonly room: RoomService | null;
  readonly poller: StatsPoller | null;
  readonly db: Db | null;
  /** Stops everything. */
  close(): Promise<void>;
}

/** Default directory of the pages. */
export const DEFAULT_STATIC_DIR = programFile("static/site/");

function envOf(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/**
 * The caller's address: the peer, or behind a trusted reverse proxy the last
 * `X-Forwarded-For` entry (the one that proxy added; earlier ones are the
 * client's word).
 */
export function callerIp(req: Request, peer: string, trustForwarded: boolean): string {
  if (!trustForwarded) return peer;
  const last = req.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim() ?? "";
  return /^[0-9A-Fa-f:.]{2,45}$/.test(last) ? last : peer;
}

/** Starts the services `config` enables. */
export async function startCompanions(config: CompanionsConfig, deps: CompanionsDeps): Promise<CompanionsHandle> {
  const log = deps.log;
  const clock = deps.clock ?? new SystemClock();
  const hasher = deps.hasher ?? argon2Hasher();
  const upstream = deps.upstream ??
    new Upstream({ baseUrl: config.game_api_endpoint, clock, userAgent: "chorus-companions" });
  const env = deps.env ?? envOf;
  const on = (name: ServiceName) => config[name].enabled;
  const cleanup: (() => Promise<void> | void)[] = [];
  const servers: Deno.HttpServer<Deno.NetAddr>[] = [];
  const ports: Partial<Record<ServiceName, number>> = {};
  const close = async () => {
    await Promise.all(servers.map((s) => s.shutdown().catch(() => {})));
    for (const fn of cleanup.reverse()) {
      try {
        await fn();
      } catch (error) {
        log.error("companion service did not stop cleanly", { error: String(error) });
      }
    }
  };

  const serve = (name: ServiceName, app: Hono<CompanionEnv>) => {
    app.onError((error) => {
      log.error("request failed", { service: name, error: error instanceof Error ? error.message : String(error) });
      return failure(500, "Internal server error");
    });
    const hostname = bindAddressOf(config, name);
    const server = Deno.serve(
      { hostname, port: config[name].port, onListen: () => {} },
      (req, info) =>
        app.fetch(req, {
          ip: callerIp(req, info.remoteAddr.hostname, name === "site" && config.site.trust_forwarded_for),
        }),
    );
    servers.push(server);
    ports[name] = server.addr.port;
    log.info("companion service listening", { service: name, address: hostname, port: server.addr.port });
  };

  try {
    let db: Db | null = null;
    if (on("user_manager") || on("api") || on("command")) {
      db = await openDb({ url: config.database_url ?? undefined, dataDir: config.data_dir, file: "companions.sqlite" });
      const opened = db;
      cleanup.push(() => opened.close());
    }

    let room: RoomService | null = null;
    if (on("room")) {
      room = new RoomService({
        logPath: config.room.log_path,
        userInfoPath: userInfoPath(config),
        fromStart: config.room.from_start,
        pollMs: config.room.poll_interval_ms,
        staleRoomSecs: config.room.stale_room_secs,
        cleanupIntervalSecs: config.room.cleanup_interval_secs,
        clock,
        log: log.child({ service: "room" }),
      });
      await room.start();
      const r = room;
      cleanup.push(() => r.stop());
      serve("room", room.app);
    }

    let userManager: Hono<CompanionEnv> | null = null;
    if (on("user_manager")) {
      const um = config.user_manager;
      await migrateUsers(db!);
      const store = new UserStore(db!);
      if (!um.admin_password_hash && !um.super_admin_password_hash) {
        log.warn("user_manager has no role password hashes: the admin endpoints refuse everyone");
      }
      const tracker = room?.tracker;
      const refresher = new ProfileRefresher({
        store,
        upstream,
        clock,
        log: log.child({ service: "user_manager" }),
        policy: um,
      });
      userManager = userManagerApp({
        store,
        hasher,
        roles: { super: um.super_admin_password_hash, admin: um.admin_password_hash },
        players: playerDirectory({
          ...(tracker ? { names: (id: number) => tracker.names.get(id) } : { userInfoPath: userInfoPath(config) }),
          gameServerUrl: um.game_server_url,
          log: log.child({ service: "user_manager" }),
          ...(deps.fetch ? { fetch: deps.fetch } : {}),
        }),
        clock,
        log: log.child({ service: "user_manager" }),
        lockout: um.lockout,
        onBound: () => refresher.nudge(),
      });
      refresher.start();
      cleanup.push(() => refresher.stop());
      serve("user_manager", userManager);
    }

    let poller: StatsPoller | null = null;
    if (on("api")) {
      await migrateStats(db!);
      poller = new StatsPoller({
        url: config.api.url,
        intervalMs: config.api.interval_ms,
        timeoutMs: config.api.timeout_ms,
        sampleIntervalSecs: config.api.sample_interval_secs,
        retentionDays: config.api.retention_days,
        store: new StatsStore(db!),
        clock,
        log: log.child({ service: "api" }),
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
      });
      await poller.start();
      const p = poller;
      cleanup.push(() => p.stop());
      serve("api", poller.app);
    }

    let command: CommandService | null = null;
    if (on("command")) {
      await migrateAudit(db!);
      command = new CommandService({
        settings: config.command,
        hasher,
        audit: new AuditStore(db!),
        clock,
        log: log.child({ service: "command" }),
      });
      if (!config.command.password_hash) log.warn("command has no password_hash: every request is refused");
      await command.start();
      const c = command;
      cleanup.push(() => c.stop());
      serve("command", command.app);
    }

    if (on("file")) {
      const path = servedFilePath(config, env);
      serve("file", fileServiceApp(path, config.file.max_bytes, log.child({ service: "file" })));
    }

    if (on("site")) {
      const routed = (app: Hono<CompanionEnv> | null) =>
        app ? { fetch: (req: Request, e: { ip: string }) => app.fetch(req, e) } : null;
      serve(
        "site",
        siteApp({
          staticDir: config.site.static_dir
            ? pathToFileURL(`${await Deno.realPath(config.site.static_dir)}/`)
            : deps.staticDir ?? DEFAULT_STATIC_DIR,
          title: config.site.title,
          gameSiteUrl: config.game_site_url,
          customCommands: config.command.allow_custom,
          userManager: routed(userManager),
          room: routed(room?.app ?? null),
          command: routed(command?.app ?? null),
          upstream,
          clock,
          log: log.child({ service: "site" }),
        }),
      );
    }
    return { ports, room, poller, db, close };
  } catch (error) {
    await close();
    throw error;
  }
}
