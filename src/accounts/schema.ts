/**
 * Tables of the account backend (component `accounts` in `chorus_schema`),
 * written once for SQLite and PostgreSQL. Every name carries the
 * `accounts_` prefix: the tables may share a PostgreSQL database with the
 * game server's own (which has a `users` table of its own).
 *
 * Differences from the original schema (reference: the Flask backend): names
 * are unique case-insensitively (`*_key` columns: NFKC, lower case), times
 * are epoch milliseconds, sessions live server-side (only token digests),
 * and users carry their sync schedule (`next_sync_at`, `sync_failures`).
 *
 * @module
 */

import type { Migration } from "../db/mod.ts";

/** Migration steps of the `accounts` component. */
export const ACCOUNTS_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
CREATE TABLE accounts_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE accounts_groups (
  id {{id}},
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  permissions BIGINT NOT NULL
);
CREATE TABLE accounts_users (
  id {{id}},
  group_id BIGINT NOT NULL REFERENCES accounts_groups (id),
  username TEXT NOT NULL,
  username_key TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  game_id BIGINT UNIQUE,
  game_username TEXT,
  game_rks DOUBLE PRECISION,
  game_avatar TEXT,
  register_time BIGINT NOT NULL,
  last_login_time BIGINT,
  last_sync_time BIGINT,
  sync_failures INTEGER NOT NULL DEFAULT 0,
  next_sync_at BIGINT
);
CREATE INDEX accounts_users_group ON accounts_users (group_id);
CREATE INDEX accounts_users_next_sync ON accounts_users (next_sync_at);
CREATE TABLE accounts_sessions (
  token_digest TEXT PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES accounts_users (id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  remember BOOLEAN NOT NULL,
  ip TEXT
);
CREATE INDEX accounts_sessions_user ON accounts_sessions (user_id);
CREATE INDEX accounts_sessions_expires ON accounts_sessions (expires_at);
CREATE TABLE accounts_visited (game_id BIGINT PRIMARY KEY, first_seen BIGINT NOT NULL);
INSERT INTO accounts_meta (key, value) VALUES ('guard', '0');
`,
  },
];

/** The case-insensitive key of a user or group name. */
export function nameKey(name: string): string {
  return name.normalize("NFKC").toLowerCase();
}
