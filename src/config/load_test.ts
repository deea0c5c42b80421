import assert from "node:assert/strict";
import { ConfigError } from "./errors.ts";
import { loadConfig, type LoadedConfig } from "./load.ts";
import { defaultConfig } from "./schema.ts";
import { sourceLabel } from "./sources.ts";

type Input = { files?: Record<string, string>; env?: Record<string, string>; args?: string[] };

/** Loads with everything injected; files are keyed by absolute path under `/srv`. */
function load(input: Input = {}): Promise<LoadedConfig> {
  return loadConfig({
    args: input.args ?? [],
    env: input.env ?? {},
    cwd: "/srv",
    readTextFile: (path) => input.files?.[path] ?? null,
  });
}

/** The ConfigError thrown by loading `input`. */
async function failure(input: Input): Promise<ConfigError> {
  try {
    await load(input);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  assert.fail("expected a ConfigError");
}

const label = (loaded: LoadedConfig, key: string) => sourceLabel(loaded.sources.get(key) ?? { kind: "default" });

Deno.test("loadConfig without file, env or flags gives the defaults", async () => {
  const loaded = await load();
  assert.deepEqual(loaded.config, defaultConfig());
  assert.equal(loaded.file, null);
  assert.deepEqual(loaded.rest, []);
  assert.equal(label(loaded, "port"), "default");
  assert.equal(label(loaded, "openuds.enabled"), "default");
});

Deno.test("loadConfig applies defaults < file < env < flag with sources", async () => {
  const loaded = await load({
    files: { "/srv/server_config.yml": "port: 1000\nhttp_port: 2000\nmax_sessions: 10\nopenuds:\n  enabled: true\n" },
    env: { PM_PORT: "1001", PM_HTTP_PORT: "2001", PM_OPENUDS__MAX_CONNECTIONS: "7" },
    args: ["--port", "1002"],
  });
  const c = loaded.config;
  assert.deepEqual([c.port, c.http_port, c.max_sessions, c.openuds.enabled, c.openuds.max_connections], [
    1002,
    2001,
    10,
    true,
    7,
  ]);
  assert.equal(loaded.file, "/srv/server_config.yml");
  assert.equal(label(loaded, "port"), "flag --port");
  assert.equal(label(loaded, "http_port"), "env PM_HTTP_PORT");
  assert.equal(label(loaded, "max_sessions"), "file server_config.yml");
  assert.equal(label(loaded, "openuds.enabled"), "file server_config.yml");
  assert.equal(label(loaded, "openuds.max_connections"), "env PM_OPENUDS__MAX_CONNECTIONS");
  assert.equal(label(loaded, "openuds.socket_path"), "default");
});

Deno.test("loadConfig coerces environment text by schema type", async (t) => {
  const cases: [string, Record<string, string>, (l: LoadedConfig) => unknown, unknown][] = [
    ["integer", { PM_MAX_SESSIONS: " 12 " }, (l) => l.config.max_sessions, 12],
    ["boolean words", { PM_CHAT_ENABLED: "off", PM_CLI_ENABLED: "YES" }, (l) => [
      l.config.chat_enabled,
      l.config.cli_enabled,
    ], [false, true]],
    ["boolean digits", { PM_CHAT_ENABLED: "0", PM_PERSISTENT_ROOMS_REQUIRED: "1" }, (l) => [
      l.config.chat_enabled,
      l.config.persistent_rooms_required,
    ], [false, true]],
    ["nested boolean", { PM_OPENUDS__ENABLED: "true" }, (l) => l.config.openuds.enabled, true],
    ["JSON list", { PM_MONITORS: "[2,5]" }, (l) => l.config.monitors, [2, 5]],
    ["comma list", { PM_ADMIN_GAME_IDS: "7, 8" }, (l) => l.config.admin_game_ids, [7, 8]],
    ["empty list", { PM_MONITORS: "" }, (l) => l.config.monitors, []],
    ["string list", { PM_PROXY_ALLOW_CIDR: '["10.0.0.0/8","::1/128"]' }, (l) => l.config.proxy_allow_cidr, [
      "10.0.0.0/8",
      "::1/128",
    ]],
    [
      "JSON map",
      { PM_TABLE_RETENTION: '{"mp_events":{"days":3,"time_col":"created_at"}}' },
      (l) => l.config.table_retention,
      { mp_events: { days: 3, time_col: "created_at" } },
    ],
    ["nested map", { PM_WELCOME__MESSAGES: '{"en-US":["hi [user_name]"]}' }, (l) => l.config.welcome.messages, {
      "en-US": ["hi [user_name]"],
    }],
    ["section as JSON", { PM_UPDATE: '{"auto":true,"min_idle_minutes":3}' }, (l) => l.config.update, {
      manifest_url: null,
      auto: true,
      check_interval_secs: 3600,
      min_idle_minutes: 3,
    }],
    ["optional integer null", { PM_MAX_ROOMS: "null" }, (l) => l.config.max_rooms, null],
    [
      "optional integer empty",
      { PM_TRUSTED_FORWARDED_HTTP_PORT: "" },
      (l) => l.config.trusted_forwarded_http_port,
      null,
    ],
    ["optional integer set", { PM_MAX_ROOMS: "25" }, (l) => l.config.max_rooms, 25],
    ["optional string empty", { PM_DATABASE_URL: "" }, (l) => l.config.database_url, null],
    ["string", { PM_SERVER_NAME: "My server" }, (l) => l.config.server_name, "My server"],
    ["enum any case", { PM_LOG_LEVEL: "WARN", PM_PROFILE: "staging" }, (l) => [l.config.log_level, l.config.profile], [
      "warn",
      "Staging",
    ]],
  ];
  for (const [name, env, get, expected] of cases) {
    await t.step(name, async () => assert.deepEqual(get(await load({ env })), expected));
  }
});

Deno.test("loadConfig reports a wrong type from the environment with key, value and source", async () => {
  const error = await failure({ env: { PM_PORT: "abc" } });
  assert.deepEqual(error.problems, [
    'port = "abc" (from environment PM_PORT): expected an integer between 1 and 65535',
  ]);
  assert.equal(
    error.message,
    'Invalid configuration: port = "abc" (from environment PM_PORT): expected an integer between 1 and 65535',
  );
  assert.equal(error.code, "CONFIG_INVALID");
});

Deno.test("loadConfig reports a wrong type from the file with path and line", async () => {
  const error = await failure({ files: { "/srv/server_config.yml": "port: 12346\nchat_enabled: maybe\n" } });
  assert.deepEqual(error.problems, [
    'chat_enabled = "maybe" (from file server_config.yml line 2): expected a boolean (true or false)',
  ]);
});

Deno.test("loadConfig reports a wrong value from a flag", async () => {
  const error = await failure({ args: ["--http-port=70000"] });
  assert.deepEqual(error.problems, [
    "http_port = 70000 (from flag --http-port): expected an integer between 0 and 65535",
  ]);
});

Deno.test("loadConfig collects every problem, not just the first", async () => {
  const error = await failure({
    files: { "/cfg/c.yml": "monitors: [1, x]\nopenuds:\n  max_connections: 0\n" },
    env: { PM_GAME_API_ENDPOINT: "not a url", PM_MONITORS_X: "1" },
    args: ["--config", "/cfg/c.yml", "--log-level", "loud"],
  });
  // schema key order, one line per problem
  assert.deepEqual(error.problems, [
    'monitors[1] = "x" (from file /cfg/c.yml line 1): expected a 32-bit integer',
    'game_api_endpoint = "not a url" (from environment PM_GAME_API_ENDPOINT): expected an http:// or https:// URL',
    'log_level = "loud" (from flag --log-level): expected one of debug, info, warn, error',
    "openuds.max_connections = 0 (from file /cfg/c.yml line 3): expected an integer between 1 and 1024",
  ]);
  assert.equal(error.message.split("\n").length, 4);
  assert.ok(error.warnings.some((w) => w.includes("PM_MONITORS_X")));
});

Deno.test("loadConfig reports invalid JSON in an environment list", async () => {
  const error = await failure({ env: { PM_MONITORS: "[2," } });
  assert.equal(error.problems.length, 1);
  assert.match(error.problems[0] ?? "", /^monitors = "\[2," \(from environment PM_MONITORS\): invalid JSON/);
});

Deno.test("loadConfig warns about unknown keys with their source", async () => {
  const loaded = await load({
    files: { "/srv/server_config.yml": "port: 1\nfrobnicate: 3\nopenuds:\n  colour: blue\n" },
    env: { PM_NOPE: "1", PM_TEST_DATABASE_URL: "postgres://x/y", PM_PROT: "1", PM_CHAT_ENABLD: "1" },
    args: ["--tui"],
  });
  assert.deepEqual(loaded.warnings, [
    'Unknown configuration key "frobnicate" (from file server_config.yml line 2) is ignored',
    'Unknown configuration key "openuds.colour" (from file server_config.yml line 4) is ignored',
    "Unknown environment variable PM_CHAT_ENABLD is ignored; did you mean PM_CHAT_ENABLED?",
    "Unknown environment variable PM_NOPE is ignored (no such configuration key)",
    "Unknown environment variable PM_PROT is ignored; did you mean PM_PORT?",
  ]);
  assert.deepEqual(loaded.rest, ["--tui"]);
});

Deno.test("loadConfig reports invalid YAML with file, line and column", async () => {
  const error = await failure({ files: { "/srv/server_config.yml": "port: 1\nmonitors: [1,\n" } });
  assert.equal(error.problems.length, 1);
  assert.match(error.problems[0] ?? "", /^cannot parse server_config\.yml line 3 column 1: /);
  const dup = await failure({ files: { "/srv/server_config.yml": "port: 1\nport: 2\n" } });
  assert.match(dup.problems[0] ?? "", /^cannot parse server_config\.yml line 2 column 1: Map keys must be unique/);
});

Deno.test("loadConfig refuses a top level that is not a mapping", async () => {
  const error = await failure({ files: { "/srv/server_config.yml": "- port\n" } });
  assert.match(error.problems[0] ?? "", /expected a mapping of configuration keys/);
});

Deno.test("loadConfig accepts an empty file and a null section", async () => {
  assert.deepEqual((await load({ files: { "/srv/server_config.yml": "" } })).config, defaultConfig());
  const loaded = await load({ files: { "/srv/server_config.yml": "openuds:\n" } });
  assert.deepEqual(loaded.config.openuds, defaultConfig().openuds);
});

Deno.test("loadConfig: missing default file is fine, missing named file is an error", async () => {
  assert.equal((await load()).file, null);
  const error = await failure({ args: ["--config", "other.yml"] });
  assert.deepEqual(error.problems, ["configuration file other.yml not found (from flag --config)"]);
  const named = await load({ files: { "/srv/conf/x.yml": "port: 5" }, args: ["--config=conf/x.yml"] });
  assert.equal(named.file, "/srv/conf/x.yml");
  assert.equal(named.config.port, 5);
  assert.equal(label(named, "port"), "file conf/x.yml");
});

Deno.test("loadConfig reports an unreadable file", async () => {
  const readTextFile = (): string => {
    throw new Error("Permission denied");
  };
  await assert.rejects(() => loadConfig({ args: [], env: {}, cwd: "/srv", readTextFile }), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.deepEqual(e.problems, ["cannot read server_config.yml: Permission denied"]);
    return true;
  });
});

Deno.test("loadConfig never prints a secret value in a problem", async () => {
  const error = await failure({
    env: { PM_DATABASE_URL: "mysql://root:topsecret@db/x" },
    args: ["--sentry-dsn", "s3cr3t"],
  });
  assert.equal(error.problems.length, 2);
  for (const p of error.problems) {
    assert.ok(!p.includes("topsecret") && !p.includes("s3cr3t"), p);
  }
  assert.ok(error.problems.includes(
    'database_url = "mysql://root:****@db/x" (from environment PM_DATABASE_URL): expected a postgres:// or postgresql:// URL',
  ));
});

Deno.test("loadConfig returns non-configuration arguments in order", async () => {
  const loaded = await load({ args: ["start", "--port", "1", "--tui", "-h", "--bench", "5", "--", "--port", "9"] });
  assert.equal(loaded.config.port, 1);
  assert.deepEqual(loaded.rest, ["start", "--tui", "-h", "--bench", "5", "--", "--port", "9"]);
});

Deno.test("loadConfig: a later layer replaces lists and maps whole", async () => {
  const loaded = await load({
    files: { "/srv/server_config.yml": "monitors: [1, 2, 3]\nwelcome:\n  messages:\n    en-US: [a]\n" },
    env: { PM_MONITORS: "[9]", PM_WELCOME__MESSAGES: '{"zh-CN":["b"]}' },
  });
  assert.deepEqual(loaded.config.monitors, [9]);
  assert.deepEqual(loaded.config.welcome.messages, { "zh-CN": ["b"] });
});

Deno.test("loadConfig: a section with a wrong type from the file names the section", async () => {
  const error = await failure({ files: { "/srv/server_config.yml": "openuds: true\n" } });
  assert.deepEqual(error.problems, [
    "openuds = true (from file server_config.yml line 1): expected a mapping of openuds settings",
  ]);
  const fixed = await load({
    files: { "/srv/server_config.yml": "openuds: true\n" },
    env: { PM_OPENUDS__ENABLED: "1" },
  });
  assert.equal(fixed.config.openuds.enabled, true);
});

Deno.test("loadConfig reports table_retention mistakes with the full path and the key's own line", async () => {
  const error = await failure({
    files: { "/srv/server_config.yml": "table_retention:\n  mp_events:\n    max_rows: -1\n    rows: 3\n" },
  });
  assert.deepEqual(error.problems, [
    "table_retention.mp_events.max_rows = -1 (from file server_config.yml line 3): expected an integer between 1 and 2000000000",
  ]);
  // An unknown field in a rule is a warning like any unknown key, shown with the failure.
  assert.deepEqual(error.warnings, [
    'Unknown configuration key "table_retention.mp_events.rows" (from file server_config.yml line 4) is ignored',
  ]);
});

Deno.test("loadConfig names the nearest key of a misspelled one in the file", async () => {
  const loaded = await load({
    files: { "/srv/server_config.yml": "prot: 1\nopenuds:\n  enabeld: true\nmax-rooms: 3\n" },
  });
  assert.deepEqual(loaded.warnings, [
    'Unknown configuration key "prot" (from file server_config.yml line 1) is ignored; did you mean port?',
    'Unknown configuration key "openuds.enabeld" (from file server_config.yml line 3) is ignored; did you mean ' +
    "openuds.enabled?",
    'Unknown configuration key "max-rooms" (from file server_config.yml line 4) is ignored; did you mean max_rooms?',
  ]);
});

Deno.test("loadConfig refuses to start on a misspelled secret instead of starting without it", async (t) => {
  const cases: [string, Input, RegExp][] = [
    [
      "admin_pasword in the file",
      { files: { "/srv/server_config.yml": "admin_pasword: correct-horse\n" } },
      /^Unknown configuration key "admin_pasword" \(from file server_config\.yml line 1\): did you mean admin_password\? A misspelled secret would leave admin_password unset, so the server does not start/,
    ],
    [
      "openuds.auth_tokn in the file",
      { files: { "/srv/server_config.yml": "openuds:\n  auth_tokn: t\n" } },
      /^Unknown configuration key "openuds\.auth_tokn" .*did you mean openuds\.auth_token\?/,
    ],
    [
      "PM_ADMIN_PASWORD in the environment",
      { env: { PM_ADMIN_PASWORD: "correct-horse" } },
      /^Unknown environment variable PM_ADMIN_PASWORD: did you mean PM_ADMIN_PASSWORD\? A misspelled secret/,
    ],
    [
      "PM_DATABSE_URL in the environment (the embedded database would be used instead)",
      { env: { PM_DATABSE_URL: "postgres://u@h/db" } },
      /did you mean PM_DATABASE_URL\? A misspelled secret would leave database_url unset/,
    ],
    [
      "PM_DATABASE_URL_FIEL in the environment",
      { env: { PM_DATABASE_URL_FIEL: "/run/secrets/db" } },
      /did you mean PM_DATABASE_URL_FILE\?/,
    ],
  ];
  for (const [name, options, expected] of cases) {
    await t.step(name, async () => {
      const error = await failure(options);
      assert.equal(error.problems.length, 1, error.message);
      assert.match(error.problems[0] ?? "", expected);
      assert.ok(!error.message.includes("correct-horse"), "the value is never shown");
    });
  }
});

Deno.test("loadConfig: a file that does not parse is not preceded by unrelated warnings", async () => {
  // Production findings would be about the defaults, not the configuration meant.
  const error = await failure({ files: { "/srv/server_config.yml": "port: [1\n" }, env: { PM_PROFILE: "Staging" } });
  assert.equal(error.problems.length, 1);
  assert.match(error.problems[0] ?? "", /^cannot parse server_config\.yml line/);
  assert.deepEqual(error.warnings, []);
});
