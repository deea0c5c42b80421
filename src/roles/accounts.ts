/**
 * `chorus accounts`: the account backend (local accounts bound to game
 * accounts by a room-name proof, groups, the profile R room API). Own
 * options; loaded on demand so other roles never load it.
 *
 * @module
 */

import type { Role } from "./role.ts";

/** The `accounts` role. */
export const accountsRole: Role = {
  name: "accounts",
  summary: "the account backend: local accounts bound to game accounts, groups, the room API (docs/accounts.md)",
  usage: "Usage: chorus accounts [--port 5000] [--mp-server host:port] [options]   (chorus accounts --help lists them)",
  run: async (args) => (await import("../accounts/mod.ts")).runAccounts(args),
};
