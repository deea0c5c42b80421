import assert from "node:assert/strict";
import { ConfigError } from "./errors.ts";
import { loadConfig, type LoadedConfig } from "./load.ts";
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

Deno.test("loadConfig reads PM_DATABASE_URL_FILE, trimmed", async () => {
  const url = "postgres://chorus:hunter22@db/chorus";
  const loaded = await load({
    files: { "/run/secrets/db": `  ${url}\n` },
    env: { PM_DATABASE_URL_FILE: "/run/secrets/db" },
  });
  assert.equal(loaded.config.database_url, url);
  assert.equal(label(loaded, "database_url"), "env PM_DATABASE_URL_FILE");
  const relative = await load({ files: { "/srv/db.txt": url }, env: { PM_DATABASE_URL_FILE: "db.txt" } });
  assert.equal(relative.config.database_url, url);
});

Deno.test("loadConfig: PM_DATABASE_URL wins over PM_DATABASE_URL_FILE", async () => {
  const loaded = await load({
    files: { "/f": "postgres://a@b/c" },
    env: { PM_DATABASE_URL_FILE: "/f", PM_DATABASE_URL: "postgres://x@y/z" },
  });
  assert.equal(loaded.config.database_url, "postgres://x@y/z");
  assert.ok(loaded.warnings.includes("PM_DATABASE_URL_FILE is ignored because PM_DATABASE_URL is set"));
});

Deno.test("loadConfig reports a missing or empty PM_DATABASE_URL_FILE", async () => {
  assert.deepEqual((await failure({ env: { PM_DATABASE_URL_FILE: "/nope" } })).problems, [
    'database_url = (unset) (from environment PM_DATABASE_URL_FILE): file "/nope" not found',
  ]);
  assert.deepEqual((await failure({ files: { "/e": " \n" }, env: { PM_DATABASE_URL_FILE: "/e" } })).problems, [
    'database_url = (unset) (from environment PM_DATABASE_URL_FILE): file "/e" is empty',
  ]);
});

Deno.test("loadConfig reads SERVICE_SECRET_KEY and HSN_SECRET_KEY into service_secret_key", async () => {
  const a = await load({ env: { SERVICE_SECRET_KEY: "a-long-enough-secret-1", HSN_SECRET_KEY: "other" } });
  assert.equal(a.config.service_secret_key, "a-long-enough-secret-1");
  assert.equal(label(a, "service_secret_key"), "env SERVICE_SECRET_KEY");
  assert.ok(a.warnings.some((w) => w.startsWith("SERVICE_SECRET_KEY and HSN_SECRET_KEY differ")));
  const b = await load({ env: { HSN_SECRET_KEY: "hsn" } });
  assert.equal(b.config.service_secret_key, "hsn");
  assert.equal(label(b, "service_secret_key"), "env HSN_SECRET_KEY");
  const c = await load({ env: { PM_SERVICE_SECRET_KEY: "pm", SERVICE_SECRET_KEY: "svc" } });
  assert.equal(c.config.service_secret_key, "pm");
  const d = await load({ env: { SERVICE_SECRET_KEY: "svc" }, args: ["--service-secret-key=flag"] });
  assert.equal(d.config.service_secret_key, "flag");
});
