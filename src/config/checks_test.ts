import assert from "node:assert/strict";
import { productionSummary } from "./checks.ts";
import { ConfigError } from "./errors.ts";
import { loadConfig, type LoadedConfig } from "./load.ts";

const GOOD = { PM_ADMIN_PASSWORD: "correct horse battery", SERVICE_SECRET_KEY: "0123456789abcdef0123" };

function load(env: Record<string, string>, args: string[] = []): Promise<LoadedConfig> {
  return loadConfig({ args, env, cwd: "/srv", readTextFile: () => null });
}

async function problems(env: Record<string, string>, args: string[] = []): Promise<readonly string[]> {
  try {
    await load(env, args);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

Deno.test("Production accepts strong secrets and an https upstream", async () => {
  const loaded = await load({ ...GOOD, PM_PROFILE: "Production" });
  assert.equal(loaded.config.profile, "Production");
  assert.deepEqual(loaded.warnings, []);
});

Deno.test("Production refuses missing, empty and well-known secrets", async (t) => {
  const cases: [string, Record<string, string>, string][] = [
    [
      "admin_password unset",
      { SERVICE_SECRET_KEY: GOOD.SERVICE_SECRET_KEY },
      "admin_password = (unset) (default value): must be set",
    ],
    [
      "admin_password empty",
      { ...GOOD, PM_ADMIN_PASSWORD: "" },
      "admin_password = (unset) (from environment PM_ADMIN_PASSWORD): must be set",
    ],
    [
      "admin_password admin",
      { ...GOOD, PM_ADMIN_PASSWORD: "Admin" },
      "admin_password = **** (from environment PM_ADMIN_PASSWORD): is a well-known password",
    ],
    [
      "admin_password changeme",
      { ...GOOD, PM_ADMIN_PASSWORD: "changeme" },
      "admin_password = **** (from environment PM_ADMIN_PASSWORD): is a well-known password",
    ],
    [
      "admin_password short",
      { ...GOOD, PM_ADMIN_PASSWORD: "x7!k" },
      "admin_password = **** (from environment PM_ADMIN_PASSWORD): must be at least 8 characters",
    ],
    [
      "service_secret_key unset",
      { PM_ADMIN_PASSWORD: GOOD.PM_ADMIN_PASSWORD },
      "service_secret_key = (unset) (default value): must be set (also read from SERVICE_SECRET_KEY)",
    ],
    ["service_secret_key debug default", {
      ...GOOD,
      HSN_SECRET_KEY: "x",
      SERVICE_SECRET_KEY: "some_random_secret_key_for_debugging",
    }, "service_secret_key = **** (from environment SERVICE_SECRET_KEY): is a publicly known debug value"],
    [
      "plain http upstream",
      { ...GOOD, PM_GAME_API_ENDPOINT: "http://phira.example" },
      'game_api_endpoint = "http://phira.example" (from environment PM_GAME_API_ENDPOINT): must use https',
    ],
    [
      "plain http release manifest",
      { ...GOOD, PM_UPDATE__MANIFEST_URL: "http://releases.example/chorus.json" },
      'update.manifest_url = "http://releases.example/chorus.json" (from environment PM_UPDATE__MANIFEST_URL): must use https',
    ],
  ];
  for (const [name, env, expected] of cases) {
    await t.step(name, async () => assert.deepEqual(await problems({ ...env, PM_PROFILE: "Production" }), [expected]));
  }
});

Deno.test("Production refuses several findings at once", async () => {
  assert.equal((await problems({ PM_PROFILE: "Production", PM_GAME_API_ENDPOINT: "http://x.example" })).length, 3);
});

Deno.test("Staging warns about each Production finding; Development lists them apart and sums them up in one line", async () => {
  const env = { PM_ADMIN_PASSWORD: "admin", PM_GAME_API_ENDPOINT: "http://x.example" };
  const findings = [
    "admin_password = **** (from environment PM_ADMIN_PASSWORD): is a well-known password; refused in profile Production",
    "service_secret_key = (unset) (default value): must be set (also read from SERVICE_SECRET_KEY); refused in profile Production",
    'game_api_endpoint = "http://x.example" (from environment PM_GAME_API_ENDPOINT): must use https; refused in profile Production',
  ];
  const staging = await load({ ...env, PM_PROFILE: "Staging" });
  assert.deepEqual(staging.warnings, findings);
  assert.deepEqual(staging.production, []);
  const development = await load({ ...env, PM_PROFILE: "Development" });
  assert.deepEqual(development.warnings, [], "not warnings in Development, where they are expected");
  assert.deepEqual(development.production, findings, "check-config lists them");
  assert.equal(
    productionSummary(development.production ?? []),
    "Development profile: fine here, but Production would refuse admin_password, service_secret_key, " +
      "game_api_endpoint (details: deno task check-config)",
  );
  assert.equal(productionSummary((await load({ ...GOOD, PM_PROFILE: "Development" })).production ?? []), null);
});

Deno.test("Production allows openuds approval mode with a warning", async () => {
  const loaded = await load({ ...GOOD, PM_PROFILE: "Production", PM_OPENUDS__ENABLED: "true" });
  assert.equal(loaded.config.openuds.auth_token, "");
  assert.deepEqual(loaded.warnings, [
    "openuds.auth_token = (unset) (default value): empty: local-socket clients use approval mode (approve openuds <id> at the console)",
  ]);
  const withToken = await load({
    ...GOOD,
    PM_PROFILE: "Production",
    PM_OPENUDS: '{"enabled":true,"auth_token":"tok-123"}',
  });
  assert.deepEqual(withToken.warnings, []);
});

Deno.test("ports must differ in every profile", async () => {
  assert.deepEqual(await problems({ PM_HTTP_PORT: "12346" }), [
    "http_port = 12346 (from environment PM_HTTP_PORT): must differ from port",
  ]);
  assert.deepEqual(await problems({ PM_TRUSTED_FORWARDED_HTTP_PORT: "12347" }), [
    "trusted_forwarded_http_port = 12347 (from environment PM_TRUSTED_FORWARDED_HTTP_PORT): must differ from port and http_port",
  ]);
  assert.deepEqual(await problems({ PM_HTTP_PORT: "0", PM_TRUSTED_FORWARDED_HTTP_PORT: "8080" }), []);
});

Deno.test("table_retention rules that do nothing or fall back are warned about", async () => {
  const loaded = await load({
    PM_TABLE_RETENTION:
      '{"a":{"days":3},"events":{},"visits":{"days":3},"rounds":{"days":3,"time_col":"finished_at"},' +
      '"telemetry_batches":{"max_rows":10,"time_col":"at"}}',
  });
  const retention = loaded.warnings.filter((w) => w.startsWith("table_retention"));
  assert.equal(retention.length, 4);
  assert.match(
    retention[0] ?? "",
    /^table_retention\.a = \{"days":3\} \(from environment PM_TABLE_RETENTION\): is not a table retention manages \(events, visits, .*dead_letters\); the rule is ignored$/,
  );
  assert.match(
    retention[1] ?? "",
    /^table_retention\.events = \{\} .*: has neither max_rows nor days; the rule does nothing$/,
  );
  assert.match(
    retention[2] ?? "",
    /^table_retention\.visits .*: has no time_col; the table's default "connected_at" is used$/,
  );
  assert.match(
    retention[3] ?? "",
    /^table_retention\.telemetry_batches .*: time_col "at" is not a time column of telemetry_batches \(created_at, first_at\); "created_at" is used$/,
  );
});
