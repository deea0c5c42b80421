/**
 * The environment layer: `PM_<KEY>` (nested keys joined by `__`, e.g. `PM_OPENUDS__ENABLED`), plus
 * `PM_DATABASE_URL_FILE` and the secret aliases `SERVICE_SECRET_KEY` / `HSN_SECRET_KEY`.
 *
 * @module
 */

import { assignText, emptyLayer, type LayerResult } from "./coerce.ts";
import { keyByEnv, keyByPath } from "./keys.ts";
import { formatProblem } from "./mask.ts";
import { suggestEnv, unknownName } from "./suggest.ts";
import type { ConfigSource } from "./sources.ts";

/** `PM_` variables that are not configuration keys and are therefore not warned about. */
export const NON_CONFIG_ENV: readonly string[] = ["PM_DATABASE_URL_FILE", "PM_TEST_DATABASE_URL"];

/** Aliases of `service_secret_key`, in priority order, used when `PM_SERVICE_SECRET_KEY` is not set (spec 1 §5). */
export const SECRET_KEY_ALIASES: readonly string[] = ["SERVICE_SECRET_KEY", "HSN_SECRET_KEY"];

/** Reads a file by absolute path; `null` when it does not exist. */
export type ReadTextFile = (path: string) => string | null;

/** Environment variables as given to the loader. */
export type EnvVars = Readonly<Record<string, string | undefined>>;

/** Resolves a possibly relative path against `cwd`. */
export type ResolvePath = (path: string) => string;

/** Collects assignments from environment variables, in sorted name order. */
export function readEnv(env: EnvVars, readTextFile: ReadTextFile, resolvePath: ResolvePath): LayerResult {
  const out = emptyLayer();
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || !name.startsWith("PM_") || NON_CONFIG_ENV.includes(name)) continue;
    const info = keyByEnv(name);
    if (!info) {
      const near = suggestEnv(name);
      const unknown = unknownName(`Unknown environment variable ${name}`, near);
      if (unknown.problem) out.problems.push(unknown.message);
      else out.warnings.push(near ? unknown.message : `${unknown.message} (no such configuration key)`);
      continue;
    }
    assignText(info, value, { kind: "env", name }, out);
  }
  readSecretAlias(env, out);
  readDatabaseUrlFile(env, readTextFile, resolvePath, out);
  return out;
}

/** `SERVICE_SECRET_KEY`, else `HSN_SECRET_KEY`, feeds `service_secret_key` unless `PM_SERVICE_SECRET_KEY` is set. */
function readSecretAlias(env: EnvVars, out: LayerResult): void {
  const info = keyByPath("service_secret_key");
  if (!info || env[info.env] !== undefined) return;
  const present = SECRET_KEY_ALIASES.filter((name) => (env[name] ?? "") !== "");
  const [first, second] = present;
  if (first === undefined) return;
  if (second !== undefined && env[first] !== env[second]) {
    out.warnings.push(`${first} and ${second} differ; ${first} is used for service_secret_key`);
  }
  assignText(info, env[first] ?? "", { kind: "env", name: first }, out);
}

/** `PM_DATABASE_URL_FILE` names a file holding the database URL (trimmed); `PM_DATABASE_URL` wins over it. */
function readDatabaseUrlFile(env: EnvVars, readTextFile: ReadTextFile, resolvePath: ResolvePath, out: LayerResult) {
  const name = "PM_DATABASE_URL_FILE";
  const file = env[name];
  const info = keyByPath("database_url");
  if (file === undefined || !info) return;
  if (env[info.env] !== undefined) {
    out.warnings.push(`${name} is ignored because ${info.env} is set`);
    return;
  }
  const source: ConfigSource = { kind: "env", name };
  const fail = (why: string) => out.problems.push(formatProblem(info.path, null, source, why));
  if (file.trim() === "") return void fail("the variable is empty; expected the path of a file holding the URL");
  let text: string | null;
  try {
    text = readTextFile(resolvePath(file));
  } catch (e) {
    return void fail(`cannot read "${file}": ${e instanceof Error ? e.message : String(e)}`);
  }
  if (text === null) return void fail(`file "${file}" not found`);
  if (text.trim() === "") return void fail(`file "${file}" is empty`);
  assignText(info, text.trim(), source, out);
}
