/**
 * The one configuration schema: every key, its type, default, range and one-line doc (spec 3 §2.3, §4.5, §8).
 * Everything else in `src/config/` (env and flag names, coercion, `server_config.yml`, masking) is derived from it.
 *
 * @module
 */

import * as z from "../util/zod.ts";

/** Metadata registered for every key in `z.globalRegistry`: the doc line and, for secrets, `secret: true`. */
export interface KeyMeta {
  /** One-line documentation, copied into `server_config.yml`. */
  description: string;
  /** Marks a secret: masked when rendered, never printed in errors. The only place secrets are marked. */
  secret?: true;
}

/** Documents a key. */
function key<T extends z.ZodMiniType>(schema: T, doc: string): T {
  z.globalRegistry.add(schema, { description: doc } satisfies KeyMeta);
  return schema;
}

/** Documents a key and marks it secret. */
function secret<T extends z.ZodMiniType>(schema: T, doc: string): T {
  z.globalRegistry.add(schema, { description: doc, secret: true } satisfies KeyMeta);
  return schema;
}

/** An integer in `[min, max]`, with one message for every way of missing it. */
function intIn(min: number, max: number, message = `expected an integer between ${min} and ${max}`) {
  return z.int({ error: message }).check(z.gte(min, { error: message }), z.lte(max, { error: message }));
}

const I32_MESSAGE = "expected a 32-bit integer";
const i32 = () => intIn(-2147483648, 2147483647, I32_MESSAGE);
const port = () => intIn(1, 65535);
/** A duration in seconds; capped so that `secs * 1000` stays a valid timer delay. */
const secs = (min: number, max = 86400) => intIn(min, max);
const capacity = (max = 1_000_000) => intIn(1, max);
const days = () => intIn(1, 36500);
const bool = () => z.boolean({ error: "expected a boolean (true or false)" });
const text = () => z.string({ error: "expected a string" });
const nonEmpty = () => text().check(z.minLength(1, { error: "expected a non-empty string" }));
const httpUrl = () => z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" });
const hostOrIp = () =>
  z.union([z.ipv4(), z.ipv6(), z.hostname()], { error: "expected an IP address or host name such as :: or 0.0.0.0" });
const cidr = () => z.union([z.cidrv4(), z.cidrv6()], { error: "expected a CIDR range such as 10.0.0.0/8 or fd00::/8" });
/** A plain SQL identifier: table and column names end up in SQL text, so nothing else is allowed. */
const identifier = () =>
  text().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, { error: "expected an identifier (letters, digits, _)" }));
const list = <T extends z.ZodMiniType>(item: T) => z.array(item, { error: "expected a list" });
/** A nested section; every field has a default, so an absent section parses as `{}`. */
function section<T extends z.core.$ZodShape>(shape: T, what: string) {
  const object = z.object(shape, { error: `expected a mapping of ${what} settings` });
  return z.prefault(object, {} as z.input<typeof object>);
}

/** True for `postgres://` and `postgresql://` URLs. */
function isPostgresUrl(value: string): boolean {
  return URL.canParse(value) && /^postgres(ql)?:$/.test(new URL(value).protocol);
}

/**
 * Per-table retention rule (spec 3 §2.3): over `max_rows` the table is cut to 80 %; rows older than `days` go.
 * Not strict: unknown fields are dropped here and warned about by the loader, like unknown keys elsewhere.
 */
export const TableRetentionSchema = z.object({
  max_rows: z.optional(capacity(2_000_000_000)),
  days: z.optional(days()),
  time_col: z.optional(identifier()),
}, { error: "expected a mapping with max_rows, days and time_col" });

/** Local-socket API section (spec 3 §4.5). */
const OpenUdsSchema = section({
  enabled: key(z._default(bool(), false), "Serve the local-socket API (Unix only)."),
  socket_path: key(z._default(nonEmpty(), "data/openuds.sock"), "Socket file; replaced at start and made mode 0660."),
  auth_token: secret(
    z._default(text(), ""),
    "Shared token; empty = clients wait for console approval (approve openuds <id>).",
  ),
  max_connections: key(z._default(intIn(1, 1024), 4), "Maximum simultaneous authenticated clients."),
  event_buffer_size: key(z._default(intIn(64, 1_048_576), 1024), "Per-client outbound event queue length."),
  heartbeat_interval_secs: key(z._default(secs(5), 60), "Seconds between server.heartbeat events."),
  approval_ttl_secs: key(z._default(secs(1), 120), "Seconds a pending approval request stays valid."),
}, "openuds");

/** Welcome message section (spec 3 §2.3). */
const WelcomeSchema = section({
  enabled: key(z._default(bool(), true), "Send the welcome message after login."),
  show_time: key(z._default(bool(), false), "Allow the [time] placeholder (Unix seconds)."),
  messages: key(
    z._default(
      z.record(
        text().check(
          z.regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, { error: "expected a language tag such as en-US" }),
        ),
        list(text()),
        { error: "expected a mapping of language tag to a list of lines" },
      ),
      {},
    ),
    "Language tag -> list of lines; {} = built-in localized text.",
  ),
}, "welcome");

/** Plugin runtime limits (spec 3 §8). */
const WasmRuntimeSchema = section({
  max_memory_mb: key(z._default(intIn(1, 4096), 64), "Linear memory limit per plugin (MiB)."),
  max_stack_bytes: key(z._default(intIn(65536, 268_435_456), 2097152), "Stack limit per plugin (bytes)."),
  fuel_per_call: key(
    z._default(capacity(1e12), 10000000),
    "Instruction budget per call (not metered here: call_timeout_ms bounds each call).",
  ),
  call_timeout_ms: key(z._default(intIn(1, 600_000), 2000), "Wall-clock limit per call (ms)."),
  init_timeout_ms: key(z._default(intIn(1, 600_000), 10000), "Wall-clock limit for plugin init (ms)."),
  max_event_concurrency: key(z._default(intIn(1, 1024), 8), "Events delivered to plugins at once."),
  event_queue_capacity: key(z._default(capacity(), 2048), "Pending plugin events before dropping."),
  http_timeout_secs: key(z._default(secs(1, 3600), 10), "Timeout of plugin HTTP requests (s)."),
  max_http_response_bytes: key(z._default(capacity(1_073_741_824), 2097152), "Largest plugin HTTP response (bytes)."),
  max_file_bytes: key(z._default(capacity(1_073_741_824), 4194304), "Largest plugin data file (bytes)."),
  allow_private_network: key(z._default(bool(), false), "Let plugins reach loopback/private addresses."),
  cache_dir: key(z._default(text(), ""), "Compiled plugins (by content hash); empty = <data_dir>/plugin-cache."),
}, "wasm_runtime");

/** Self-update section (spec 3 §5.4). */
const UpdateSchema = section({
  manifest_url: key(
    z._default(z.nullable(httpUrl()), null),
    "Release manifest (JSON: version, per-platform url, sha256, size); null = no release source.",
  ),
  auto: key(z._default(bool(), false), "Apply updates automatically (startup value; console: update auto)."),
  check_interval_secs: key(z._default(secs(60, 604800), 3600), "Seconds between update checks."),
  min_idle_minutes: key(z._default(intIn(0, 10080), 10), "Minutes without players before an update is applied."),
}, "update");

/** The account backend mounted in the game server (docs/accounts.md); the standalone role has its own options. */
const AccountsSchema = section({
  enabled: key(z._default(bool(), false), "Run the account backend in this process (events straight from the server)."),
  port: key(z._default(port(), 5000), "Account backend HTTP port."),
  bind_address: key(z._default(hostOrIp(), "0.0.0.0"), "Account backend listen address."),
  allowed_origins: key(
    z._default(list(httpUrl()), []),
    "Browser origins allowed to call it with cookies; [] = own only.",
  ),
  cookie_secure: key(
    z._default(z.enum(["auto", "always", "never"], { error: "expected auto, always or never" }), "auto"),
    "Secure cookies: auto (when the client used https) | always | never.",
  ),
  trust_proxy: key(z._default(bool(), false), "Believe X-Forwarded-For/-Proto (only behind a reverse proxy)."),
}, "accounts");

/** Legacy mode (`chorus legacy`, docs/legacy-migration.md): Lua plugins, replays and the admin HTTP API on 61234. */
const LegacySchema = section({
  builtin_plugins: key(
    z._default(bool(), true),
    "Load the five built-in Lua plugins (a plugin of the same id in plugins_dir wins).",
  ),
  lua_instruction_budget: key(
    z._default(intIn(10_000, 1_000_000_000), 1_000_000),
    "Lua instructions one hook or route call may run.",
  ),
  lua_memory_mb: key(z._default(intIn(1, 4096), 64), "Heap growth one Lua call may cause (MiB)."),
  lua_state_memory_mb: key(
    z._default(intIn(1, 16384), 256),
    "Lua data one plugin may hold between calls (MiB); more stops the plugin.",
  ),
  lua_max_overruns: key(
    z._default(intIn(1, 1000), 3),
    "Budget or memory overruns within an hour before a plugin is disabled.",
  ),
  replay_retention_days: key(z._default(days(), 4), "Days replays are kept (by the time in the file name)."),
  replay_download_bytes_per_sec: key(
    z._default(intIn(0, 1_000_000_000), 51200),
    "Replay download rate per connection; 0 = unthrottled.",
  ),
  admin_max_failures: key(
    z._default(intIn(1, 1000), 5),
    "Wrong admin tokens from one address before it is locked out.",
  ),
  admin_lockout_minutes: key(z._default(intIn(1, 10080), 15), "How long the admin API refuses a locked-out address."),
}, "legacy");

/** Profiles; `Production` refuses weak secrets and plain-http upstreams (see `checks.ts`). */
export const PROFILES = ["Development", "Staging", "Production"] as const;

/** The configuration schema. Key order here is the order of `server_config.yml` and of rendered output. */
export const ConfigSchema = z.object({
  profile: key(
    z._default(z.enum(PROFILES, { error: "expected one of Development, Staging, Production" }), "Development"),
    "Development | Staging | Production; Production refuses weak secrets.",
  ),
  server_name: key(
    z._default(nonEmpty().check(z.maxLength(64, { error: "expected at most 64 characters" })), "Chorus"),
    "Display name.",
  ),
  port: key(z._default(port(), 12346), "Game TCP port."),
  bind_address: key(z._default(hostOrIp(), "::"), "Game TCP listen address (:: = dual-stack)."),
  http_port: key(z._default(intIn(0, 65535), 12347), "HTTP/SSE/WebSocket port; 0 disables HTTP."),
  http_bind_address: key(z._default(hostOrIp(), "0.0.0.0"), "HTTP listen address."),
  http_cors_origins: key(
    z._default(list(httpUrl()), []),
    "Origins allowed to call the HTTP API from browsers; [] = same origin only.",
  ),
  trusted_forwarded_http_port: key(
    z._default(z.nullable(port()), null),
    "Extra HTTP port that trusts X-Forwarded-For; null = off.",
  ),
  chart_service: key(
    z._default(bool(), true),
    "Serve /chart/{id} on the HTTP port for the spectator page (charts some room selected), cached in data_dir.",
  ),
  chart_cache_max_mb: key(
    z._default(intIn(16, 1_048_576), 1024),
    "Disk for built charts (MB); least recently used go first.",
  ),
  proxy_allow_cidr: key(z._default(list(cidr()), []), "CIDRs allowed to send a PROXY protocol header."),
  monitors: key(z._default(list(i32()), [2]), "Game user ids allowed to spectate."),
  admin_game_ids: key(z._default(list(i32()), []), "Game user ids with in-game admin console rights."),
  game_api_endpoint: key(z._default(httpUrl(), "https://phira.5wyxi.com"), "Upstream Phira API base URL."),
  plugins_dir: key(z._default(nonEmpty(), "plugins"), "Plugin directory."),
  data_dir: key(z._default(nonEmpty(), "data"), "Directory of the embedded database (chorus.sqlite) and the journal."),
  database_url: secret(
    z._default(
      z.nullable(text().check(z.refine(isPostgresUrl, { error: "expected a postgres:// or postgresql:// URL" }))),
      null,
    ),
    "PostgreSQL URL; null = embedded SQLite database in data_dir.",
  ),
  chat_enabled: key(z._default(bool(), true), "Allow in-room chat."),
  cli_enabled: key(z._default(bool(), true), "Run the interactive console."),
  room_creation_enabled: key(z._default(bool(), true), "Allow players to create rooms (startup value)."),
  connection_rate_limit: key(z._default(capacity(), 30), "New connections allowed per address per window."),
  connection_rate_window: key(z._default(secs(1), 10), "Connection rate window (s)."),
  max_rooms: key(z._default(z.nullable(capacity()), null), "Room limit; null = unlimited."),
  max_users_per_room: key(z._default(intIn(1, 10000), 100), "Players per room."),
  max_sessions: key(z._default(capacity(), 4096), "Simultaneous sessions."),
  max_pending_auth: key(z._default(capacity(), 256), "Sessions waiting for authentication."),
  max_pending_auth_per_ip: key(
    z._default(capacity(), 8),
    "Sessions of one address waiting for authentication (IPv6: one /64; loopback is not limited per address).",
  ),
  frame_buffer_budget_mb: key(
    z._default(intIn(1, 65536), 64),
    "Frame bytes all game connections may buffer at once (MiB); a connection needing more is closed.",
  ),
  play_history_cache_size: key(z._default(intIn(0, 100000), 100), "Rounds kept per room in memory; 0 = none."),
  chat_history_limit: key(z._default(intIn(0, 100000), 50), "Chat messages kept per room; 0 = none."),
  ready_countdown_secs: key(z._default(secs(1), 60), "Ready countdown before auto start (s)."),
  playing_timeout_offset_secs: key(z._default(secs(0), 60), "Added to the chart duration for the round deadline (s)."),
  heartbeat_timeout: key(z._default(secs(1, 3600), 15), "Silence before a session is dropped (s)."),
  auth_timeout: key(z._default(secs(1, 3600), 15), "Time allowed to authenticate (s)."),
  auth_budget_ms: key(z._default(intIn(1, 600_000), 5000), "Budget for one authentication upstream call (ms)."),
  record_budget_ms: key(
    z._default(intIn(1, 600_000), 6000),
    "Budget for fetching a play record on Played, retries included (ms); the official client waits 7 s for the reply.",
  ),
  dangle_grace: key(z._default(secs(0, 3600), 10), "Grace for a dropped player outside a round (s)."),
  playing_reconnect_grace: key(z._default(secs(0, 3600), 15), "Grace for a dropped player during a round (s)."),
  graceful_shutdown_timeout: key(z._default(secs(0), 15), "Wait for sessions and queues at shutdown (s)."),
  sighup: key(
    z._default(z.enum(["stop", "ignore"], { error: "expected stop or ignore" }), "stop"),
    "SIGHUP (terminal closed, SSH dropped): stop = graceful stop like SIGTERM; ignore = keep running (nohup).",
  ),
  on_orphan: key(
    z._default(z.enum(["auto", "stop", "ignore"], { error: "expected auto, stop or ignore" }), "auto"),
    "Parent process gone, server left running: auto = stop if a task runner (deno task, npm) started it; stop; ignore.",
  ),
  persistence_queue_capacity: key(
    z._default(capacity(), 2048),
    "Durable write queue; when full items stay journal-only.",
  ),
  persistent_rooms_required: key(
    z._default(bool(), false),
    "Refuse to start when persistent rooms cannot be restored.",
  ),
  startup_recovery_timeout: key(z._default(secs(1), 30), "Journal replay and recovery limit (s)."),
  journal_damaged_records: key(
    z._default(z.enum(["refuse", "skip"], { error: "expected refuse or skip" }), "refuse"),
    "Damaged journal records not yet stored: refuse to start, or skip them (set for one start).",
  ),
  round_telemetry_max_mb: key(
    z._default(intIn(1, 1024), 16),
    "Touches and judges stored per player and round (MB of wire bytes); the rest is dropped and counted.",
  ),
  round_data_retention_days: key(z._default(days(), 7), "Days round data is kept (simple store)."),
  persistence_retention_days: key(z._default(days(), 30), "Days durable events are kept."),
  touch_judge_retention_days: key(z._default(days(), 7), "Days touch and judge streams are kept."),
  table_retention: key(
    z._default(
      z.record(identifier(), TableRetentionSchema, { error: "expected a mapping of table name to a rule" }),
      {},
    ),
    "Table -> {max_rows?, days?, time_col?}; checked hourly.",
  ),
  admin_password: secret(z._default(z.nullable(text()), null), "Admin panel password; required in Production."),
  admin_token: secret(
    z._default(z.nullable(text()), null),
    "Legacy mode: admin HTTP API token (X-Admin-Token, Bearer or ?token=); null = one-time codes only.",
  ),
  replay_enabled: key(z._default(bool(), false), "Legacy mode: record .phirarec replays of new rooms (startup value)."),
  service_secret_key: secret(
    z._default(z.nullable(text()), null),
    "Shared secret with the monitor proxy; env SERVICE_SECRET_KEY or HSN_SECRET_KEY.",
  ),
  sentry_dsn: secret(z._default(z.nullable(httpUrl()), null), "Error reporting DSN; null = off."),
  log_level: key(
    z._default(
      z.enum(["debug", "info", "warn", "error"], { error: "expected one of debug, info, warn, error" }),
      "info",
    ),
    "debug | info | warn | error.",
  ),
  log_format: key(z._default(z.enum(["text", "json"], { error: "expected text or json" }), "text"), "text | json."),
  openuds: key(OpenUdsSchema, "Local-socket API (spec 3 section 4.5)."),
  welcome: key(WelcomeSchema, "Welcome message after login."),
  wasm_runtime: key(WasmRuntimeSchema, "Plugin runtime limits."),
  update: key(UpdateSchema, "Self-update (off by default)."),
  accounts: key(AccountsSchema, "Account backend (off by default; docs/accounts.md)."),
  legacy: key(LegacySchema, "Legacy mode (chorus legacy; docs/legacy-migration.md)."),
});

/** The effective configuration: every key present, defaults applied. */
export type Config = z.output<typeof ConfigSchema>;

/** Deployment profile. */
export type Profile = Config["profile"];

/** A fresh fully defaulted configuration. */
export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}
