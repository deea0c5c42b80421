/**
 * The account backend (spec 2 §1.1, §2.1, §3-§7; spec 1 profile R): local
 * accounts bound to game accounts by a room-name proof, user groups with
 * permission bits, visited game accounts, and the profile R room API -- as
 * the `accounts` role (`cli.ts`, `deno task accounts`) or mounted in the
 * game server (`mount.ts`, `accounts.enabled`). See `docs/accounts.md`.
 *
 * @example Usage
 * ```ts ignore
 * import { runAccounts } from "./mod.ts";
 * Deno.exit(await runAccounts(["--port", "5000", "--mp-server", "127.0.0.1:12346"]));
 * ```
 *
 * @module
 */

export * from "./errors.ts";
export * from "./permissions.ts";
export {
  type Argon2Params,
  DEFAULT_ARGON2,
  InlineHasher,
  MIN_PASSWORD_LENGTH,
  type PasswordHasher,
  TEST_ARGON2,
} from "./passwords.ts";
export { HasherBusyError, WorkerHasher } from "./password_pool.ts";
export { type GameDirectory, resolveGameAccount, upstreamDirectory } from "./game_accounts.ts";
export type { RoomSnapshotEntry, RoomSource, RoomSourceEvent } from "./room_source.ts";
export { MonitorRoomSource, type MonitorSourceOptions } from "./room_source_monitor.ts";
export { BusRoomSource, type BusSourceOptions, type LiveRoom } from "./room_source_bus.ts";
export { type RoomInfoJson, RoomTable } from "./room_table.ts";
export {
  type AccountsListen,
  type AccountsOptions,
  type AccountsService,
  rootPasswordBanner,
  startAccounts,
} from "./service.ts";
export type { CookieSecure } from "./context.ts";
export { CSRF_COOKIE, CSRF_HEADER, REMEMBER_TTL_MS, SESSION_COOKIE, SESSION_TTL_MS } from "./sessions.ts";
export { VERIFICATION_TIMEOUT_MS } from "./verification.ts";
export { ROOT_PASSWORD_ENV } from "./seed.ts";
export { mountAccounts, type MountDeps } from "./mount.ts";
export { ACCOUNTS_USAGE, parseAccountsArgs, parseHostPort, runAccounts } from "./cli.ts";
