import assert from "node:assert/strict";
import { loadConfig } from "./load.ts";
import { maskDatabaseUrl } from "./mask.ts";
import { changedKeys, renderEffectiveConfig } from "./render.ts";
import { defaultConfig } from "./schema.ts";

const SECRETS = {
  password: "Tr0ub4dor&3-admin",
  service: "svc-secret-0123456789abcdef",
  db: "db-pass-7f3a9c",
  token: "uds-token-55aa",
  sentry: "sentry-key-abc123",
};

function loadWithSecrets() {
  return loadConfig({
    args: ["--port", "4000", "--openuds.enabled"],
    env: {
      PM_ADMIN_PASSWORD: SECRETS.password,
      SERVICE_SECRET_KEY: SECRETS.service,
      PM_DATABASE_URL: `postgres://chorus:${SECRETS.db}@db.internal:5432/chorus?sslmode=require`,
      PM_OPENUDS__AUTH_TOKEN: SECRETS.token,
      PM_SENTRY_DSN: `https://${SECRETS.sentry}@o1.ingest.sentry.io/42`,
      PM_PROFILE: "Production",
    },
    cwd: "/srv",
    readTextFile: (path) => path === "/srv/server_config.yml" ? "http_port: 8080\n" : null,
  });
}

Deno.test("renderEffectiveConfig shows each value with its source", async () => {
  const lines = renderEffectiveConfig(await loadWithSecrets());
  assert.equal(lines[0], "Configuration file: /srv/server_config.yml");
  assert.equal(lines[1], "Profile: Production");
  const line = (key: string) => lines.find((l) => l.trimStart().startsWith(key + " "));
  assert.match(line("port") ?? "", /^ {2}port +\= 4000 +\(flag --port\)$/);
  assert.match(line("http_port") ?? "", /= 8080 +\(file server_config\.yml\)$/);
  assert.match(line("profile") ?? "", /= "Production" +\(env PM_PROFILE\)$/);
  assert.match(line("openuds.enabled") ?? "", /= true +\(flag --openuds\.enabled\)$/);
  assert.match(line("max_sessions") ?? "", /= 4096 +\(default\)$/);
  assert.match(line("monitors") ?? "", /= \[2\] +\(default\)$/);
});

Deno.test("renderEffectiveConfig masks every secret", async () => {
  const lines = renderEffectiveConfig(await loadWithSecrets());
  const text = lines.join("\n");
  for (const secret of Object.values(SECRETS)) assert.ok(!text.includes(secret), `leaked ${secret}`);
  const line = (key: string) => lines.find((l) => l.trimStart().startsWith(key + " ")) ?? "";
  assert.match(line("database_url"), /= "postgres:\/\/chorus:\*\*\*\*@db\.internal:5432\/chorus\?sslmode=require"/);
  assert.match(line("admin_password"), /= \*\*\*\* +\(env PM_ADMIN_PASSWORD\)$/);
  assert.match(line("service_secret_key"), /= \*\*\*\* +\(env SERVICE_SECRET_KEY\)$/);
  assert.match(line("openuds.auth_token"), /= \*\*\*\* +\(env PM_OPENUDS__AUTH_TOKEN\)$/);
  assert.match(line("sentry_dsn"), /= \*\*\*\* +\(env PM_SENTRY_DSN\)$/);
});

Deno.test("renderEffectiveConfig shows unset secrets as (unset), lists warnings and what Production would refuse", async () => {
  const loaded = await loadConfig({ args: [], env: { PM_NOPE: "1" }, cwd: "/srv", readTextFile: () => null });
  const lines = renderEffectiveConfig(loaded);
  assert.equal(lines[0], "Configuration file: (none; defaults apply)");
  assert.match(lines.find((l) => l.includes(" admin_password ")) ?? "", /= \(unset\) +\(default\)$/);
  assert.match(lines.find((l) => l.includes(" openuds.auth_token ")) ?? "", /= \(unset\)/);
  const at = lines.indexOf("Warnings:");
  const refused = lines.indexOf("Profile Production would refuse:");
  assert.ok(at > 0 && refused > at);
  assert.deepEqual(lines.slice(at + 1, refused), loaded.warnings.map((w) => `  ! ${w}`));
  assert.deepEqual(lines.slice(refused + 1), [
    "  - admin_password = (unset) (default value): must be set; refused in profile Production",
    "  - service_secret_key = (unset) (default value): must be set (also read from SERVICE_SECRET_KEY); " +
    "refused in profile Production",
  ]);
});

Deno.test("maskDatabaseUrl masks the password and secret parameters", () => {
  assert.equal(maskDatabaseUrl("postgres://user:pw@host/db"), "postgres://user:****@host/db");
  assert.equal(maskDatabaseUrl("postgres://user@host/db"), "postgres://user@host/db");
  assert.equal(
    maskDatabaseUrl("postgres://host/db?password=pw&sslmode=disable"),
    "postgres://host/db?password=****&sslmode=disable",
  );
  assert.equal(maskDatabaseUrl("not a url with pw"), "****");
});

Deno.test("changedKeys lists the leaf keys that differ", () => {
  const a = defaultConfig();
  const b = defaultConfig();
  b.port = 1;
  b.openuds.enabled = true;
  b.monitors.push(3);
  assert.deepEqual(changedKeys(a, b), ["port", "monitors", "openuds.enabled"]);
  assert.deepEqual(changedKeys(a, defaultConfig()), []);
});
