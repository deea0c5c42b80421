/**
 * Operations over data plugins keep or read (spec 3 §4.2 `extension
 * list|get`, §4.6): extension data (`ext.*`, `extension.*`), a plugin's own
 * files (`file.*`, for plugins only: each reaches its own directory), the
 * typed room state behind `phira-room-state` (`room.state`), and recent
 * events behind `phira-runtime.events` (`runtime.events`). Command vetoes
 * are in `ops_vetoes.ts`.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { type Actor, OpsError, p, type ServerOp, serverOp } from "../ops/mod.ts";
import type { Room } from "../room/mod.ts";
import { SYSTEM_HOST } from "../room/mod.ts";
import type { ServerCore } from "../server/mod.ts";
import type { ExtensionStore, ExtScope } from "./ext_store.ts";
import { FileError, PluginFiles } from "./files.ts";
import type { RecentEvents } from "./recent_events.ts";

const key = () => p.text(128);
const value = () => z.nullable(z.string().check(z.maxLength(65536, { error: "must be at most 65536 characters" })));

async function guarded<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RangeError) throw new OpsError("INVALID_ARGUMENT", error.message);
    if (error instanceof FileError) {
      throw new OpsError(error.message.startsWith("no file") ? "NOT_FOUND" : "INVALID_ARGUMENT", error.message);
    }
    throw error;
  }
}

/** `ext.*` and `extension.*`. */
export function extensionOps(store: () => ExtensionStore): ServerOp[] {
  const get = (scope: ExtScope, id: string, k: string) => ({ key: k, value: store().get(scope, id, k) });
  const set = async (scope: ExtScope, id: string, k: string, v: string | null) => {
    await guarded(() => store().set(scope, id, k, v));
    return { key: k, value: v };
  };
  return [
    serverOp({
      name: "ext.get",
      summary: "a server-wide extension value, or null",
      permission: "ext",
      params: { key: key() },
      run: (a) => get("global", "", a.key),
    }),
    serverOp({
      name: "ext.set",
      summary: "set (null: remove) a server-wide extension value",
      permission: "ext",
      mutates: true,
      params: { key: key(), value: value() },
      run: (a) => set("global", "", a.key, a.value),
    }),
    serverOp({
      name: "ext.user_get",
      summary: "a user's extension value, or null",
      permission: "ext",
      params: { user_id: p.userId(), key: key() },
      run: (a) => get("user", String(a.user_id), a.key),
    }),
    serverOp({
      name: "ext.user_set",
      summary: "set (null: remove) a user's extension value",
      permission: "ext",
      mutates: true,
      params: { user_id: p.userId(), key: key(), value: value() },
      run: (a) => set("user", String(a.user_id), a.key, a.value),
    }),
    serverOp({
      name: "ext.room_get",
      summary: "a room's extension value, or null",
      permission: "ext",
      params: { room_id: p.roomId(), key: key() },
      run: (a) => get("room", a.room_id, a.key),
    }),
    serverOp({
      name: "ext.room_set",
      summary: "set (null: remove) a room's extension value (dropped with the room)",
      permission: "ext",
      mutates: true,
      params: { room_id: p.roomId(), key: key(), value: value() },
      run: (a) => set("room", a.room_id, a.key, a.value),
    }),
    serverOp({
      name: "extension.list",
      summary: "extension data: users and rooms holding values, and the keys in use",
      permission: "ext",
      run: () => ({ ...store().summary(), user_ids: store().ids("user", 100), room_ids: store().ids("room", 100) }),
    }),
    serverOp({
      name: "extension.get",
      summary: "extension values of a user, a room or the server (one key or all)",
      permission: "ext",
      params: {
        scope: z.enum(["user", "room", "global"], { error: "expected user, room or global" }),
        id: z.optional(z.union([z.string().check(z.maxLength(64)), z.int()])),
        key: z.optional(key()),
      },
      run: (a) => {
        if (a.scope !== "global" && a.id === undefined) {
          throw new OpsError("INVALID_ARGUMENT", "id: required for user and room");
        }
        const id = a.scope === "global" ? "" : String(a.id);
        return a.key !== undefined
          ? { scope: a.scope, id: id || null, ...get(a.scope, id, a.key) }
          : { scope: a.scope, id: id || null, values: store().entries(a.scope, id) };
      },
    }),
  ];
}

/** The files of the calling plugin; refuses other callers. */
function filesOf(actor: Actor, root: string, maxBytes: number): PluginFiles {
  if (actor.kind !== "plugin") {
    throw new OpsError(
      "FORBIDDEN",
      "file operations reach the calling plugin's own directory: call them from a plugin",
    );
  }
  return new PluginFiles(`${root}/${actor.id}/files`, maxBytes);
}

/** `file.read`, `file.write`, `file.list`, `file.delete`. */
export function fileOps(dataDir: string, maxBytes: number): ServerOp[] {
  const encoding = () => z._default(z.enum(["utf8", "base64"], { error: "expected utf8 or base64" }), "utf8");
  const path = () => p.text(1024);
  return [
    serverOp({
      name: "file.read",
      summary: "read a file of the calling plugin's directory",
      permission: "file.read",
      params: { path: path(), encoding: encoding() },
      run: (a, { actor }) =>
        guarded(async () => ({
          path: a.path,
          content: await filesOf(actor, dataDir, maxBytes).read(a.path, a.encoding),
        })),
    }),
    serverOp({
      name: "file.write",
      summary: "write a file of the calling plugin's directory (atomically, at most max_file_bytes)",
      permission: "file.write",
      mutates: true,
      params: { path: path(), content: z.string(), encoding: encoding() },
      run: (a, { actor }) =>
        guarded(async () => ({
          path: a.path,
          bytes: await filesOf(actor, dataDir, maxBytes).write(a.path, a.content, a.encoding),
        })),
    }),
    serverOp({
      name: "file.list",
      summary: "the files of the calling plugin's directory",
      permission: "file.read",
      run: (_a, { actor }) => guarded(async () => ({ files: await filesOf(actor, dataDir, maxBytes).list() })),
    }),
    serverOp({
      name: "file.delete",
      summary: "delete a file of the calling plugin's directory",
      permission: "file.write",
      mutates: true,
      params: { path: path() },
      run: (a, { actor }) => guarded(async () => ({ deleted: await filesOf(actor, dataDir, maxBytes).delete(a.path) })),
    }),
  ];
}

/** The typed room state of `phira-room-state` (snake_case JSON). */
export function roomState(core: ServerCore, room: Room): Record<string, unknown> {
  const phase = room.phase;
  const players = room.players.map((m) => {
    const result = phase.kind === "play" ? phase.results.get(m.id) : undefined;
    return {
      user_id: m.id,
      display_name: m.name,
      is_monitor: false,
      is_ready: phase.kind === "wait" && phase.ready.includes(m.id),
      is_host: room.hostId === m.id,
      is_finished: phase.kind === "play" && (phase.results.has(m.id) || phase.aborted.includes(m.id)),
      score: result?.score ?? null,
      accuracy: result?.accuracy ?? null,
    };
  });
  const monitors = room.monitors.map((m) => ({
    user_id: m.id,
    display_name: m.name,
    is_monitor: true,
    is_ready: false,
    is_host: false,
    is_finished: false,
    score: null,
    accuracy: null,
  }));
  void core;
  return {
    room_id: room.id,
    room_uuid: room.uuid,
    host_id: room.hostId === null || room.hostId === SYSTEM_HOST || room.hostId < 0 ? null : room.hostId,
    locked: room.locked,
    hidden: room.hidden,
    player_count: room.players.length,
    monitor_count: room.monitors.length,
    players: [...players, ...monitors],
    current_round: phase.kind === "play"
      ? {
        round_id: phase.round,
        chart_id: room.chart?.id ?? null,
        chart_name: room.chart?.name ?? null,
        phase: "playing",
      }
      : phase.kind === "wait"
      ? {
        round_id: "",
        chart_id: room.chart?.id ?? null,
        chart_name: room.chart?.name ?? null,
        phase: "waiting_for_ready",
      }
      : null,
  };
}

/** `room.state` and `runtime.events`. */
export function stateOps(recent: RecentEvents): ServerOp[] {
  return [
    serverOp({
      name: "room.state",
      summary: "a room's typed state: host, players with readiness and scores, the current round",
      permission: "state.read",
      params: { room_id: p.roomId() },
      run: (a, { context: s }) => roomState(s.core, s.room(a.room_id)),
    }),
    serverOp({
      name: "runtime.events",
      summary: "the most recent domain events (kind, sequence, time, room, user), newest last",
      permission: "state.read",
      params: { limit: z.optional(z.nullable(p.limit(50, 256))) },
      run: (a) => ({ events: recent.latest(a.limit ?? 50) }),
    }),
  ];
}
