/**
 * Starting and stopping the account backend: migrations and the one-time
 * seed (the generated root password is announced once), the context, the
 * room source feeding the room table, the proof registry and the visited
 * list, the game data sync, session purging and the HTTP listener. Used by
 * the standalone role (`cli.ts`) and by the game server when mounted
 * (`mount.ts`).
 *
 * @module
 */

import type { Db } from "../db/mod.ts";
import { migrate } from "../db/mod.ts";
import { forwardedFor, forwardedHttps } from "../http/client_ip.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { Hono } from "hono";
import type { AccountsContext, AccountsEnv, CookieSecure } from "./context.ts";
import type { GameDirectory } from "./game_accounts.ts";
import { GameSync } from "./game_sync.ts";
import { createAccountsApp } from "./http_app.ts";
import type { PasswordHasher } from "./passwords.ts";
import { AttemptLimiter } from "./rate_limit.ts";
import type { RoomSource, RoomSourceEvent } from "./room_source.ts";
import { RoomTable } from "./room_table.ts";
import { LOGIN_WINDOW_MS } from "./routes_auth.ts";
import { ACCOUNTS_MIGRATIONS } from "./schema.ts";
import { seedOnce } from "./seed.ts";
import { Sessions } from "./sessions.ts";
import { SseHub, sseJson } from "./sse.ts";
import { AccountStore } from "./store.ts";
import { SessionStore, VisitedStore } from "./store_sessions.ts";
import { SyncSchedule } from "./store_sync.ts";
import { Verifications } from "./verification.ts";

/** Where and how to listen. */
export interface AccountsListen {
  readonly hostname: string;
  /** 0 = any free port. */
  readonly port: number;
  /** Believe `X-Forwarded-For` / `X-Forwarded-Proto` (only behind a reverse proxy that sets them). */
  readonly trustProxy: boolean;
}

/** Everything the service is built from. */
export interface AccountsOptions {
  /** An open database; closed by the service when `ownsDb`. */
  readonly db: Db;
  readonly ownsDb: boolean;
  readonly source: RoomSource;
  readonly games: GameDirectory;
  readonly hasher: PasswordHasher;
  readonly clock: Clock;
  readonly log: Logger;
  /** Password of `root` when the database is seeded now (else one is generated). */
  readonly rootPassword?: string | undefined;
  /** Where the generated root password is shown, once (default: stdout). */
  readonly announce?: (text: string) => void;
  /** Null: no listener (tests call `fetch`). */
  readonly listen: AccountsListen | null;
  readonly allowedOrigins?: readonly string[];
  readonly cookieSecure?: CookieSecure;
  /** Keep-alive and heartbeat interval, ms (default 15 s, spec 1 §8). */
  readonly keepAliveMs?: number;
  /** Game data refresh interval per user, ms (default 1 hour). */
  readonly syncIntervalMs?: number;
  /** Verification time, ms (default 5 minutes, spec 2 §8). */
  readonly verificationMs?: number;
  /** Open streams at most (default 1024). */
  readonly maxStreams?: number;
}

/** A running account backend. */
export interface AccountsService {
  readonly ctx: AccountsContext;
  readonly app: Hono<AccountsEnv>;
  /** The bound port, or null without a listener. */
  readonly port: number | null;
  /** The game data sync (tests run rounds by hand). */
  readonly sync: GameSync;
  /** Answers a request in process as if from `ip`. */
  fetch(req: Request, ip?: string, secure?: boolean): Promise<Response>;
  /** Ends streams and registrations, stops the listener, the source and the schedules. */
  close(): Promise<void>;
}

/** The banner showing the generated root password, once. */
export function rootPasswordBanner(password: string): string {
  return [
    "================================================================",
    "Account backend: created the root account (first start).",
    "  username: root",
    `  password: ${password}`,
    "This password is shown only now and is stored only as a hash.",
    "Log in and change it (PATCH /api/auth/users/1).",
    "================================================================",
  ].join("\n");
}

/** Batches visited game ids into one insert per second, skipping ids already written. */
class VisitedRecorder {
  readonly #store: VisitedStore;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #known = new Set<number>();
  #pending = new Set<number>();
  #timer: TimerHandle | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(store: VisitedStore, clock: Clock, log: Logger) {
    this.#store = store;
    this.#clock = clock;
    this.#log = log;
  }

  add(id: number): void {
    if (id <= 0 || this.#known.has(id) || this.#pending.size >= 10_000) return;
    this.#pending.add(id);
    this.#timer ??= this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#flushing = this.flush();
    }, 1000);
  }

  async flush(): Promise<void> {
    const ids = [...this.#pending];
    this.#pending = new Set();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      try {
        await this.#store.add(chunk, this.#clock.now());
        if (this.#known.size > 100_000) this.#known.clear();
        for (const id of chunk) this.#known.add(id);
      } catch (error) {
        this.#log.warn("cannot record visited game accounts", { error: String(error) });
      }
    }
  }

  async close(): Promise<void> {
    this.#clock.clearTimeout(this.#timer);
    await this.#flushing;
    await this.flush();
  }
}

/** Starts the service. */
export async function startAccounts(o: AccountsOptions): Promise<AccountsService> {
  const { db, clock, log } = o;
  await migrate(db, "accounts", ACCOUNTS_MIGRATIONS);
  const store = new AccountStore(db);
  const seeded = await seedOnce(store, o.hasher, { rootPassword: o.rootPassword, now: clock.now() });
  if (seeded.seeded) {
    log.info("account database initialized (groups root, admin, user; user root)");
    if (seeded.generatedPassword) (o.announce ?? console.log)(rootPasswordBanner(seeded.generatedPassword));
  } else if (o.rootPassword) {
    log.warn("ACCOUNTS_ROOT_PASSWORD is set but the root account exists already; it is ignored (unset it)");
  }
  const visited = new VisitedStore(db);
  const listeners = new SseHub(o.maxStreams ?? 1024);
  const rooms = new RoomTable({ onEvent: (e) => listeners.broadcast(sseJson(e.event, e.data)) });
  const ctx: AccountsContext = {
    store,
    visited,
    sessions: new Sessions({ store: new SessionStore(db), clock }),
    hasher: o.hasher,
    games: o.games,
    clock,
    log,
    rooms,
    source: o.source,
    listeners,
    registrations: new SseHub(o.maxStreams ?? 1024),
    verifications: new Verifications({ clock, ...(o.verificationMs ? { timeoutMs: o.verificationMs } : {}) }),
    loginByAccount: new AttemptLimiter(10, LOGIN_WINDOW_MS),
    loginByIp: new AttemptLimiter(30, LOGIN_WINDOW_MS),
    registrationsByIp: new AttemptLimiter(20, 60 * 60_000),
    allowedOrigins: new Set(o.allowedOrigins ?? []),
    cookieSecure: o.cookieSecure ?? "auto",
    keepAliveMs: o.keepAliveMs ?? 15_000,
    syncIntervalMs: o.syncIntervalMs ?? 3_600_000,
  };
  const app = createAccountsApp(ctx);
  const recorder = new VisitedRecorder(visited, clock, log);
  o.source.start((e: RoomSourceEvent) => {
    rooms.apply(e);
    switch (e.type) {
      case "created":
        ctx.verifications.roomCreated(e.room, e.creator);
        for (const u of e.data.users) recorder.add(u);
        return;
      case "snapshot":
        // A proof room created while the link was down: its host is its creator as far as can be known.
        for (const [name, r] of e.rooms) {
          ctx.verifications.roomCreated(name, r.data.host);
          for (const u of r.data.users) recorder.add(u);
        }
        return;
      case "joined":
      case "visited":
        return recorder.add(e.user);
    }
  });
  const sync = new GameSync({
    schedule: new SyncSchedule(db),
    games: o.games,
    clock,
    log,
    intervalMs: ctx.syncIntervalMs,
  });
  sync.start();
  let purgeTimer: TimerHandle | undefined;
  const purge = () => {
    purgeTimer = clock.setTimeout(() => {
      ctx.sessions.purge().catch((error) => log.warn("cannot purge sessions", { error: String(error) })).finally(
        purge,
      );
    }, 3_600_000);
  };
  purge();

  const fetch = (req: Request, ip = "127.0.0.1", secure = false) => Promise.resolve(app.fetch(req, { ip, secure }));
  let server: Deno.HttpServer<Deno.NetAddr> | null = null;
  if (o.listen) {
    const trust = o.listen.trustProxy;
    server = Deno.serve({ hostname: o.listen.hostname, port: o.listen.port, onListen: () => {} }, (req, info) => {
      const peer = info.remoteAddr.hostname.replace(/^::ffff:/, "");
      const ip = trust ? forwardedFor(req.headers.get("x-forwarded-for"), peer) : peer;
      return fetch(req, ip, trust && forwardedHttps(req.headers.get("x-forwarded-proto")));
    });
    log.info("account backend listening", {
      address: o.listen.hostname,
      port: server.addr.port,
      source: o.source.description,
    });
  }
  let closing: Promise<void> | null = null;
  return {
    ctx,
    app,
    port: server?.addr.port ?? null,
    sync,
    fetch,
    close: () =>
      closing ??= (async () => {
        ctx.verifications.cancelAll();
        ctx.listeners.closeAll();
        clock.clearTimeout(purgeTimer);
        await o.source.close();
        await sync.close();
        // cancelAll() queued each registration's last `error` frame and ended it: it goes out before the listener stops.
        await server?.shutdown();
        ctx.registrations.closeAll();
        await recorder.close();
        o.hasher.close();
        if (o.ownsDb) await db.close();
      })(),
  };
}
