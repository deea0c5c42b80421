/**
 * Server configuration: one zod schema ({@link ConfigSchema}) holds every key, type, default and doc; the loader
 * merges defaults < `server_config.yml` < `PM_*` environment < `--flags`, remembers where each value came from,
 * refuses bad values with messages naming key, value and source, and renders the result with secrets masked.
 *
 * @module
 */

export { type Config, ConfigSchema, defaultConfig, type KeyMeta, type Profile, PROFILES } from "./schema.ts";
export { CONFIG_KEYS, type KeyInfo, type KeyKind, LEAF_KEYS, SECRET_KEYS } from "./keys.ts";
export { type ConfigSource, sourceLabel, sourcePhrase } from "./sources.ts";
export { ConfigError } from "./errors.ts";
export { DEFAULT_CONFIG_FILE, loadConfig, type LoadedConfig, type LoadOptions, readTextFileFromDisk } from "./load.ts";
export { type EnvVars, NON_CONFIG_ENV, type ReadTextFile, SECRET_KEY_ALIASES } from "./env.ts";
export { CONFIG_FLAG } from "./flags.ts";
export { productionSummary, PUBLIC_SECRETS, WEAK_PASSWORDS } from "./checks.ts";
export { maskDatabaseUrl, maskValue } from "./mask.ts";
export { changedKeys, renderEffectiveConfig, valueAt } from "./render.ts";
export { generateConfigYaml } from "./yml.ts";
