/**
 * Legacy mode's configuration (spec 3 §2.3 "Legacy keys"): the same sources,
 * precedence and messages as the main configuration — `server_config.yml`,
 * then `PM_*`, then `--flags` — with `http_port` 61234 when nothing sets it
 * and defaults when the file is missing.
 */
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { ConfigError, loadConfig } from "../src/config/mod.ts";
import { LEGACY_HTTP_PORT, withLegacyDefaults } from "../legacy/mod.ts";

const files = (text: string | null) => (path: string) => (path.endsWith("server_config.yml") ? text : null);

Deno.test("legacy config: defaults without a file, 61234 unless set, legacy keys from file, env and flags", async () => {
  const none = withLegacyDefaults(
    await loadConfig({ args: ["legacy"], env: {}, cwd: "/x", readTextFile: files(null) }),
  );
  equal(none.file, null);
  deepEqual(
    [
      none.config.port,
      none.config.http_port,
      none.config.admin_token,
      none.config.replay_enabled,
      none.config.monitors,
    ],
    [12346, LEGACY_HTTP_PORT, null, false, [2]],
  );
  equal(none.config.room_creation_enabled, true);
  const yml = [
    "port: 23000",
    "http_port: 23001",
    'admin_token: "from-the-file-token"',
    "replay_enabled: true",
    "room_creation_enabled: false",
    "monitors: [2, 5]",
  ].join("\n");
  const file = withLegacyDefaults(await loadConfig({ args: [], env: {}, cwd: "/x", readTextFile: files(yml) }));
  deepEqual(
    [
      file.config.port,
      file.config.http_port,
      file.config.admin_token,
      file.config.replay_enabled,
      file.config.room_creation_enabled,
      file.config.monitors,
    ],
    [23000, 23001, "from-the-file-token", true, false, [2, 5]],
  );
  const env = await loadConfig({
    args: [],
    env: { PM_ADMIN_TOKEN: "from-the-environment" },
    cwd: "/x",
    readTextFile: files(yml),
  });
  equal(env.config.admin_token, "from-the-environment");
  const flag = await loadConfig({
    args: ["--admin-token", "from-the-command-line", "--replay-enabled=false", "--legacy.lua-memory-mb", "32"],
    env: { PM_ADMIN_TOKEN: "from-the-environment" },
    cwd: "/x",
    readTextFile: files(yml),
  });
  deepEqual([flag.config.admin_token, flag.config.replay_enabled, flag.config.legacy.lua_memory_mb], [
    "from-the-command-line",
    false,
    32,
  ]);
  ok(flag.warnings.some((w) => /Secret admin_token given on the command line \(--admin-token\)/.test(w)));
  equal(flag.sources.get("admin_token")?.kind, "flag");
  equal(
    withLegacyDefaults(await loadConfig({ args: ["--http-port", "0"], env: {}, cwd: "/x", readTextFile: files(null) }))
      .config
      .http_port,
    0,
  );
});

Deno.test("legacy config: bad values are refused with the main configuration's messages, secrets masked", async () => {
  await rejects(
    () => loadConfig({ args: [], env: { PM_LEGACY__LUA_MEMORY_MB: "0" }, cwd: "/x", readTextFile: files(null) }),
    (e: Error) =>
      e instanceof ConfigError &&
      /legacy\.lua_memory_mb = 0 \(from environment PM_LEGACY__LUA_MEMORY_MB\): expected an integer between 1 and 4096/
        .test(e.message),
  );
  await rejects(
    () => loadConfig({ args: [], env: {}, cwd: "/x", readTextFile: files("replay_enabled: maybe") }),
    (e: Error) => e instanceof ConfigError && /replay_enabled/.test(e.message) && /expected a boolean/.test(e.message),
  );
  await rejects(() =>
    loadConfig({
      args: [
        "--profile",
        "Production",
        "--admin-password",
        "a-strong-password-1",
        "--service-secret-key",
        "0123456789abcdef01",
        "--admin-token",
        "short",
      ],
      env: {},
      cwd: "/x",
      readTextFile: files(null),
    }), (e: Error) => {
    match(e.message, /admin_token .*must be at least 16 characters/);
    ok(!e.message.includes("short"), "the secret is masked");
    return true;
  });
});
