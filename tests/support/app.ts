/**
 * The wired app (`src/app.ts`) for cross-component tests: a loopback
 * configuration over a caller's data_dir and upstream, started without a
 * console.
 */
import { type App, startApp } from "../../src/app.ts";
import { type Config, defaultConfig } from "../../src/config/mod.ts";

/** Defaults with loopback addresses, an OS-chosen game port, HTTP off, quiet logs and no welcome; then `more`. */
export function appConfig(dataDir: string, upstream: string, more: Partial<Config> = {}): Config {
  return {
    ...defaultConfig(),
    port: 0 as unknown as number,
    bind_address: "127.0.0.1",
    http_port: 0,
    http_bind_address: "127.0.0.1",
    data_dir: dataDir,
    game_api_endpoint: upstream,
    log_level: "error",
    welcome: { enabled: false, show_time: false, messages: {} },
    ...more,
  };
}

/**
 * Starts the app on `config` as if loaded from nowhere (no file, no sources), without a console. `quiet`: no log
 * output at all, for a test that provokes an error on purpose and checks `app.logs.history()` instead.
 */
export function startTestApp(config: Config, o: { readonly quiet?: boolean } = {}): App {
  return startApp({ config, sources: new Map(), warnings: [], file: null, rest: [] }, {
    console: false,
    ...(o.quiet ? { logSink: () => {} } : {}),
  });
}
