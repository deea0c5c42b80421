import assert from "node:assert/strict";
import { ConfigSchema, defaultConfig } from "./schema.ts";
import { CONFIG_KEYS, keyByEnv, keyByFlag, keyByPath, LEAF_KEYS, SECRET_KEYS } from "./keys.ts";

Deno.test("defaultConfig has the documented defaults", () => {
  const c = defaultConfig();
  assert.equal(c.port, 12346);
  assert.equal(c.bind_address, "::");
  assert.equal(c.http_port, 12347);
  assert.equal(c.http_bind_address, "0.0.0.0");
  assert.equal(c.trusted_forwarded_http_port, null);
  assert.deepEqual(c.proxy_allow_cidr, []);
  assert.deepEqual(c.monitors, [2]);
  assert.equal(c.game_api_endpoint, "https://phira.5wyxi.com");
  assert.equal(c.plugins_dir, "plugins");
  assert.equal(c.data_dir, "data");
  assert.equal(c.chat_enabled, true);
  assert.equal(c.cli_enabled, true);
  assert.equal(c.connection_rate_limit, 30);
  assert.equal(c.connection_rate_window, 10);
  assert.equal(c.round_data_retention_days, 7);
  assert.equal(c.database_url, null);
  assert.equal(c.profile, "Development");
  assert.equal(c.max_rooms, null);
  assert.equal(c.max_users_per_room, 100);
  assert.equal(c.max_sessions, 4096);
  assert.equal(c.max_pending_auth, 256);
  assert.equal(c.play_history_cache_size, 100);
  assert.equal(c.chat_history_limit, 50);
  assert.equal(c.ready_countdown_secs, 60);
  assert.equal(c.playing_timeout_offset_secs, 60);
  assert.equal(c.room_creation_enabled, true);
  assert.deepEqual(
    [c.heartbeat_timeout, c.auth_timeout, c.dangle_grace, c.playing_reconnect_grace, c.auth_budget_ms],
    [15, 15, 10, 15, 5000],
  );
  assert.equal(c.record_budget_ms, 6000);
  assert.deepEqual([c.persistence_queue_capacity, c.persistent_rooms_required, c.startup_recovery_timeout], [
    2048,
    false,
    30,
  ]);
  assert.deepEqual(c.table_retention, {});
  assert.deepEqual([c.persistence_retention_days, c.touch_judge_retention_days], [30, 7]);
  assert.deepEqual(c.admin_game_ids, []);
  assert.equal(c.sentry_dsn, null);
  assert.equal(c.graceful_shutdown_timeout, 15);
  assert.equal(c.admin_password, null);
  assert.equal(c.service_secret_key, null);
  assert.equal(c.server_name, "Chorus");
  assert.equal(c.log_level, "info");
  assert.equal(c.log_format, "text");
  assert.deepEqual(c.openuds, {
    enabled: false,
    socket_path: "data/openuds.sock",
    auth_token: "",
    max_connections: 4,
    event_buffer_size: 1024,
    heartbeat_interval_secs: 60,
    approval_ttl_secs: 120,
  });
  assert.deepEqual(c.welcome, { enabled: true, show_time: false, messages: {} });
  assert.deepEqual(c.wasm_runtime, {
    max_memory_mb: 64,
    max_stack_bytes: 2097152,
    fuel_per_call: 10000000,
    call_timeout_ms: 2000,
    init_timeout_ms: 10000,
    max_event_concurrency: 8,
    event_queue_capacity: 2048,
    http_timeout_secs: 10,
    max_http_response_bytes: 2097152,
    max_file_bytes: 4194304,
    allow_private_network: false,
    cache_dir: "",
  });
  assert.deepEqual(c.update, { manifest_url: null, auto: false, check_interval_secs: 3600, min_idle_minutes: 10 });
});

Deno.test("defaultConfig returns a fresh object each call", () => {
  const a = defaultConfig();
  a.monitors.push(99);
  a.openuds.enabled = true;
  assert.deepEqual(defaultConfig().monitors, [2]);
  assert.equal(defaultConfig().openuds.enabled, false);
});

Deno.test("key table derives env and flag names from the schema", () => {
  assert.equal(keyByPath("database_url")?.env, "PM_DATABASE_URL");
  assert.equal(keyByPath("openuds.enabled")?.env, "PM_OPENUDS__ENABLED");
  assert.equal(keyByPath("http_port")?.flag, "--http-port");
  assert.equal(keyByPath("wasm_runtime.max_memory_mb")?.flag, "--wasm-runtime.max-memory-mb");
  assert.equal(keyByEnv("PM_GAME_API_ENDPOINT")?.path, "game_api_endpoint");
  assert.equal(keyByFlag("--game-api-endpoint")?.path, "game_api_endpoint");
  assert.equal(keyByFlag("--http_port")?.path, "http_port");
  assert.equal(keyByFlag("--openuds.socket-path")?.path, "openuds.socket_path");
  assert.equal(keyByFlag("--tui"), undefined);
});

Deno.test("key table covers every schema key with a doc line", () => {
  const top = Object.keys(ConfigSchema.shape);
  assert.deepEqual(CONFIG_KEYS.filter((k) => k.segments.length === 1).map((k) => k.path), top);
  for (const key of CONFIG_KEYS) {
    assert.ok(key.doc.length > 0, `${key.path} has a doc`);
    assert.ok(!key.doc.includes("\n"), `${key.path} doc is one line`);
  }
  assert.equal(LEAF_KEYS.length, CONFIG_KEYS.length - 6); // sections: openuds, welcome, wasm_runtime, update, accounts, legacy
  assert.equal(keyByPath("monitors")?.itemKind, "integer");
  assert.equal(keyByPath("trusted_forwarded_http_port")?.nullable, true);
  assert.deepEqual(keyByPath("log_level")?.options, ["debug", "info", "warn", "error"]);
});

Deno.test("secret keys are marked in the schema", () => {
  assert.deepEqual([...SECRET_KEYS].sort(), [
    "admin_password",
    "admin_token",
    "database_url",
    "openuds.auth_token",
    "sentry_dsn",
    "service_secret_key",
  ]);
});

Deno.test("schema validates ranges and formats", async (t) => {
  const bad: [string, Record<string, unknown>][] = [
    ["port 0", { port: 0 }],
    ["port 65536", { port: 65536 }],
    ["port 1.5", { port: 1.5 }],
    ["http_port -1", { http_port: -1 }],
    ["monitors beyond i32", { monitors: [2 ** 31] }],
    ["cidr", { proxy_allow_cidr: ["10.0.0.0/33"] }],
    ["endpoint scheme", { game_api_endpoint: "ftp://x" }],
    ["database scheme", { database_url: "mysql://u:p@h/d" }],
    ["openuds min connections", { openuds: { max_connections: 0 } }],
    ["openuds min buffer", { openuds: { event_buffer_size: 63 } }],
    ["openuds min heartbeat", { openuds: { heartbeat_interval_secs: 4 } }],
    ["retention field", { table_retention: { t: { max_rows: 0 } } }],
    ["retention identifier", { table_retention: { "t; drop": { days: 1 } } }],
    ["welcome language", { welcome: { messages: { "not a tag": ["x"] } } }],
    ["profile", { profile: "production" }],
    ["record budget 0", { record_budget_ms: 0 }],
    ["record budget fraction", { record_budget_ms: 1.5 }],
  ];
  for (const [name, input] of bad) {
    await t.step(name, () => assert.equal(ConfigSchema.safeParse(input).success, false));
  }
  await t.step("accepted edge values", () => {
    const ok = ConfigSchema.safeParse({
      http_port: 0,
      proxy_allow_cidr: ["10.0.0.0/8", "fd00::/8"],
      database_url: "postgresql://u:p@localhost:5432/db",
      table_retention: { mp_events: { max_rows: 1000, days: 3, time_col: "created_at" } },
      welcome: { messages: { "zh-CN": ["hi"], en: [] } },
    });
    assert.equal(ok.success, true);
  });
  await t.step("unknown rule fields are dropped (the loader warns about them)", () => {
    const parsed = ConfigSchema.parse({ table_retention: { events: { days: 3, rows: 5 } } });
    assert.deepEqual(parsed.table_retention, { events: { days: 3 } });
  });
});
