/**
 * The first-generation companion services (spec 2 §4.4) and the site that
 * serves their pages (§4.5): `user_manager`, `room` (game server log
 * follower), `api` (statistics poller), `command`, `file`. Run them with
 * `chorus companions` ({@link runCompanions}); see `docs/companions.md`.
 *
 * @module
 */

export { COMPANIONS_USAGE, runCompanions } from "./cli.ts";
export { callerIp, type CompanionsDeps, type CompanionsHandle, DEFAULT_STATIC_DIR, startCompanions } from "./run.ts";
export {
  type CompanionsConfig,
  CompanionsConfigError,
  CompanionsConfigSchema,
  DEFAULT_COMMANDS,
  defaultCompanionsConfig,
  loadCompanionsConfig,
  parseCompanionsConfig,
  parseCompanionsYaml,
  SERVICE_NAMES,
  type ServiceName,
} from "./config.ts";
export { argon2Hasher, DEFAULT_ARGON2, joinFragments, type PasswordHasher, TEST_ARGON2 } from "./passwords.ts";
export { parseLogLine } from "./log_lines.ts";
