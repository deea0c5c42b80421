/**
 * A whole companion site for tests: a game server (the HTTP harness on
 * loopback) whose room log lines go to a file, the development upstream
 * over HTTP (avatars, chart metadata), and the companion services started
 * in process on OS-chosen ports, following that file and polling that
 * server. Role and command passwords are known constants; hashes use cheap
 * Argon2id parameters.
 *
 * @module
 */

import {
  type CompanionsConfig,
  type CompanionsHandle,
  parseCompanionsConfig,
  startCompanions,
} from "../../src/companions/mod.ts";
import { argon2Hasher, joinFragments, TEST_ARGON2 } from "../../src/companions/passwords.ts";
import { logRoomEvents } from "../../src/events/mod.ts";
import { type DevApiServer, serveDevApi } from "../../src/upstream/mod.ts";
import { LogHub } from "../../src/util/log.ts";
import { type HttpHarness, startHttpHarness } from "./http.ts";

/** The super administrator's password. */
export const SUPER_PASSWORD = "super-secret-phrase";
/** The administrator's password. */
export const ADMIN_PASSWORD_ROLE = "admin-secret-phrase";
/** The command service's three fragments. */
export const FRAGMENTS = ["frag-one", "frag-two", "frag-three"] as const;

/** The running stack. */
export interface CompanionsStack {
  readonly game: HttpHarness;
  readonly upstream: DevApiServer;
  readonly companions: CompanionsHandle;
  readonly config: CompanionsConfig;
  readonly dir: string;
  readonly logPath: string;
  /** `http://127.0.0.1:<site port>`. */
  readonly site: string;
  /** Every line the companions logged. */
  readonly logs: LogHub;
  close(): Promise<void>;
}

/** Starts the stack; `more` is merged into the configuration. */
export async function startCompanionsStack(more: Record<string, unknown> = {}): Promise<CompanionsStack> {
  const dir = await Deno.makeTempDir({ prefix: "chorus-companions-" });
  const logPath = `${dir}/server.log`;
  await Deno.writeTextFile(logPath, "");
  const game = await startHttpHarness({
    listen: true,
    config: { welcome: { enabled: false, show_time: false, messages: {} } },
  });
  // The game server's log, as `deno task start > server.log` would write it.
  const file = await Deno.open(logPath, { append: true });
  const encoder = new TextEncoder();
  const serverLog = new LogHub({ level: "info", sink: (line) => file.writeSync(encoder.encode(line + "\n")) });
  const stopRoomLog = logRoomEvents(game.bus, serverLog.logger());
  const upstream = serveDevApi({ port: 0, hostname: "127.0.0.1" });
  const hasher = argon2Hasher(TEST_ARGON2);
  const config = parseCompanionsConfig({
    data_dir: `${dir}/data`,
    game_api_endpoint: upstream.url,
    game_site_url: "https://phira.example",
    site: { port: 0 },
    user_manager: {
      port: 0,
      super_admin_password_hash: await hasher.hash(SUPER_PASSWORD),
      admin_password_hash: await hasher.hash(ADMIN_PASSWORD_ROLE),
      game_server_url: game.url,
      refresh_interval_secs: 3600,
      refresh_gap_ms: 0,
    },
    room: { port: 0, log_path: logPath, from_start: true, poll_interval_ms: 50 },
    api: { port: 0, url: `${game.url}/api/rooms/info` },
    command: {
      port: 0,
      password_hash: await hasher.hash(joinFragments(FRAGMENTS)!),
      commands: {
        status: ["uname", "-s"],
        start: ["echo", "started"],
        restart: ["echo", "restarted"],
        stop: ["echo", "stopped"],
      },
      allow_custom: true,
    },
    file: { port: 0 },
    ...more,
  }, "test");
  const logs = new LogHub({ level: "debug", sink: () => {} });
  const companions = await startCompanions(config, { log: logs.logger(), hasher });
  return {
    game,
    upstream,
    companions,
    config,
    dir,
    logPath,
    logs,
    site: `http://127.0.0.1:${companions.ports.site}`,
    async close() {
      await companions.close();
      stopRoomLog();
      await game.close();
      file.close();
      await upstream.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Waits for `check` to hold, polling every 20 ms for at most `ms` of real time. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
