/**
 * Ban files of the servers legacy operators come from, read on the first
 * start (and on `load_admin_data()`), written by `save_admin_data()`:
 *
 * - `admin_data.json` (tphira, lua-cpp): `{"version": 1, "bannedUsers": [ids],
 *   "bannedRoomUsers": {"<room id>": [ids]}}`;
 * - `banned_users.json` (cpp-phira-mp admin panel): a JSON array of ids;
 * - `banned.txt` (the older C++ port): one id per line, `#` comments.
 *
 * Importing is additive and idempotent (a ban already in place is left as
 * it is); each file's content hash is remembered so that a start with the
 * same file imports nothing, while a changed file is read again.
 *
 * @module
 */

import { join } from "node:path";
import { sha256Hex } from "./hash.ts";
import type { LegacyContext } from "./context.ts";

/** The files looked for in the working directory, in this order. */
export const BAN_FILES = ["admin_data.json", "banned_users.json", "banned.txt"] as const;

/** What a ban file holds. */
export interface BanFileContent {
  readonly users: readonly number[];
  readonly roomBans: Readonly<Record<string, readonly number[]>>;
}

/** The tphira `admin_data.json` shape. */
export interface AdminData {
  readonly version: 1;
  readonly bannedUsers: readonly number[];
  readonly bannedRoomUsers: Readonly<Record<string, readonly number[]>>;
}

const SETTING = "legacy.imported_files";
const isId = (v: unknown): v is number =>
  Number.isInteger(v) && (v as number) >= -2147483648 && (v as number) <= 2147483647;

/** Parses one ban file by name; throws a SyntaxError or TypeError naming the problem. */
export function parseBanFile(name: string, text: string): BanFileContent {
  if (name.endsWith(".txt")) {
    const users: number[] = [];
    for (const [i, raw] of text.split(/\r?\n/).entries()) {
      const line = raw.replace(/#.*$/, "").trim();
      if (!line) continue;
      if (!/^-?\d{1,10}$/.test(line) || !isId(Number(line))) {
        throw new TypeError(`${name} line ${i + 1}: expected a user id, found "${line.slice(0, 40)}"`);
      }
      users.push(Number(line));
    }
    return { users, roomBans: {} };
  }
  const data: unknown = JSON.parse(text);
  if (Array.isArray(data)) {
    if (!data.every(isId)) throw new TypeError(`${name}: expected a list of user ids`);
    return { users: data, roomBans: {} };
  }
  if (!data || typeof data !== "object") throw new TypeError(`${name}: expected an object or a list of user ids`);
  const d = data as Record<string, unknown>;
  const users = d.bannedUsers ?? [];
  if (!Array.isArray(users) || !users.every(isId)) {
    throw new TypeError(`${name}: bannedUsers must be a list of user ids`);
  }
  const roomBans: Record<string, number[]> = {};
  const rooms = d.bannedRoomUsers ?? {};
  if (!rooms || typeof rooms !== "object" || Array.isArray(rooms)) {
    throw new TypeError(`${name}: bannedRoomUsers must map room ids to lists of user ids`);
  }
  for (const [room, ids] of Object.entries(rooms as Record<string, unknown>)) {
    if (!Array.isArray(ids) || !ids.every(isId)) {
      throw new TypeError(`${name}: bannedRoomUsers.${room} must list user ids`);
    }
    roomBans[room] = ids;
  }
  return { users, roomBans };
}

/** What an import did. */
export interface ImportReport {
  readonly file: string;
  readonly users: number;
  readonly roomBans: number;
  /** Entries refused (an invalid room id). */
  readonly skipped: number;
}

/** Applies a file's bans (those not in place yet). */
export function applyBans(ctx: LegacyContext, file: string, content: BanFileContent): ImportReport {
  const actor = { kind: "system", component: "legacy-import" } as const;
  let users = 0;
  let roomBans = 0;
  let skipped = 0;
  for (const id of content.users) {
    if (ctx.core.bans.userBan(id)) continue;
    const r = ctx.ops.tryCallNow("player.ban", { user_id: id, reason: `imported from ${file}` }, actor);
    if (!(r instanceof Promise) && r.ok) users++;
    else skipped++;
  }
  for (const [room, ids] of Object.entries(content.roomBans)) {
    for (const id of ids) {
      if (ctx.roomBans.has(room, id)) continue;
      const r = ctx.ops.tryCallNow("legacy.room_ban", { user_id: id, room_id: room, banned: true }, actor);
      if (!(r instanceof Promise) && r.ok) roomBans++;
      else skipped++;
    }
  }
  return { file, users, roomBans, skipped };
}

/**
 * The first-start import: every ban file in `dir` whose content was not
 * imported before. Unreadable or malformed files are logged and skipped;
 * the server starts anyway.
 */
export async function importBanFiles(ctx: LegacyContext, dir = ctx.cwd): Promise<ImportReport[]> {
  const done = new Set(Array.isArray(ctx.settings.get(SETTING)) ? (ctx.settings.get(SETTING) as string[]) : []);
  const reports: ImportReport[] = [];
  for (const name of BAN_FILES) {
    let text: string;
    try {
      text = await Deno.readTextFile(join(dir, name));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) ctx.log.warn(`cannot read ${name}`, { error: String(error) });
      continue;
    }
    const key = `${name}:${await sha256Hex(text)}`;
    if (done.has(key)) continue;
    let content: BanFileContent;
    try {
      content = parseBanFile(name, text);
    } catch (error) {
      ctx.log.warn(`${name} is not a ban file this server understands; it was not imported`, {
        error: error instanceof Error ? error.message : String(error),
      });
      continue;
    }
    const report = applyBans(ctx, name, content);
    reports.push(report);
    done.add(key);
    ctx.log.info("imported bans", {
      file: name,
      users: report.users,
      room_bans: report.roomBans,
      skipped: report.skipped,
    });
  }
  ctx.settings.set(SETTING, [...done].slice(-64));
  return reports;
}

/** The bans now, in the tphira shape. */
export function adminDataNow(ctx: LegacyContext): AdminData {
  return {
    version: 1,
    bannedUsers: ctx.core.bans.userBans().map((b) => b.user_id).sort((a, b) => a - b),
    bannedRoomUsers: ctx.roomBans.all(),
  };
}

/** The path of `admin_data.json` in the working directory. */
export function adminDataPath(ctx: LegacyContext): string {
  return join(ctx.cwd, "admin_data.json");
}
