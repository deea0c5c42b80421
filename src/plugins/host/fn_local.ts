/**
 * The interfaces a plugin host answers itself: `phira-host` (log, ids,
 * time, outbound HTTP), `phira-config`, `phira-crypto`, `phira-tcp`,
 * `phira-timer`, `phira-room-state` (one `room.state` operation, so the
 * typed view and the operations agree) and `phira-handler`.
 *
 * @module
 */

import type { LogLevel } from "../../util/log.ts";
import { NodeKey, sha256 } from "../node_key.ts";
import { bytes, fn, type HostContext, type InterfaceTable, num, str } from "./table.ts";
import { CAPABILITIES } from "../../ops/mod.ts";

const LEVELS: Readonly<Record<string, LogLevel>> = {
  trace: "debug",
  debug: "debug",
  info: "info",
  warn: "warn",
  warning: "warn",
  error: "error",
};

/** Longest log line kept from a plugin. */
const MAX_LOG_CHARS = 2000;

/** `phira-host` functions that need no operation. */
export const HOST_LOCAL: InterfaceTable = {
  log: fn(null, "void", (ctx, [level, message]) => {
    const lvl = LEVELS[String(level).toLowerCase()] ?? "info";
    ctx.log[lvl](String(message).slice(0, MAX_LOG_CHARS));
  }),
  generateUuid: fn(null, "value", () => crypto.randomUUID()),
  currentTimeMs: fn(null, "value", (ctx) => BigInt(Math.floor(ctx.clock.now()))),
  httpRequest: fn("http", "result", async (ctx, [url, method, headers, body]) => {
    const list = Array.isArray(headers) ? headers.map((h) => [String(h?.[0]), String(h?.[1])] as const) : [];
    const res = await ctx.facilities.http.request(
      str(url, "url"),
      str(method, "method"),
      list,
      bytes(body ?? [], "body"),
    );
    return { status: res.status, headers: res.headers, body: res.body };
  }),
};

/** `phira-config`. */
export const CONFIG: InterfaceTable = {
  getConfig: fn("config", "api", (ctx, [key]) => ctx.facilities.config.get(str(key, "key-path"))),
  setConfig: fn("config", "api", async (ctx, [key, value]) => ({
    version: await ctx.facilities.config.set(str(key, "key-path"), str(value, "value")),
  })),
  listConfig: fn("config", "api", (ctx, [prefix]) => ctx.facilities.config.list(str(prefix ?? "", "prefix"))),
  reloadConfig: fn("config", "api", (ctx) => ctx.facilities.config.reload()),
  pollConfigChanges: fn(
    "config",
    "api",
    (ctx, [since]) => ctx.facilities.config.changesSince(num(since, "since-version")),
  ),
};

async function key(ctx: HostContext): Promise<NodeKey> {
  const k = await ctx.facilities.nodeKey();
  if (!k) throw new Error("no node key: the server has no service_secret_key configured");
  return k;
}

/** `phira-crypto`. */
export const CRYPTO: InterfaceTable = {
  sign: fn("crypto", "result", async (ctx, [payload]) => (await key(ctx)).sign(bytes(payload, "payload"))),
  verify: fn(
    "crypto",
    "result",
    (_ctx, [pub, payload, sig]) =>
      NodeKey.verify(bytes(pub, "pubkey"), bytes(payload, "payload"), bytes(sig, "signature")),
  ),
  sha256: fn("crypto", "result", (_ctx, [data]) => sha256(bytes(data, "data"))),
  getNodePublicKey: fn(null, "result", async (ctx) => (await key(ctx)).publicKey),
};

const handle = (v: unknown) => BigInt(num(v, "handle"));

/** `phira-tcp`. */
export const TCP: InterfaceTable = {
  connect: fn("tcp", "result", (ctx, [addr]) => ctx.facilities.tcp.connect(str(addr, "addr"))),
  listen: fn("tcp", "result", (ctx, [addr]) => ctx.facilities.tcp.listen(str(addr, "addr"))),
  send: fn("tcp", "result", (ctx, [h, data]) => {
    ctx.facilities.tcp.send(handle(h), bytes(data, "bytes"));
  }),
  accept: fn("tcp", "result", (ctx, [h]) => ctx.facilities.tcp.accept(handle(h)) ?? undefined),
  recv: fn("tcp", "result", (ctx, [h, max]) => ctx.facilities.tcp.recv(handle(h), num(max, "max-bytes")) ?? undefined),
  close: fn("tcp", "result", (ctx, [h]) => {
    ctx.facilities.tcp.close(handle(h));
  }),
  peerAddr: fn("tcp", "result", (ctx, [h]) => ctx.facilities.tcp.peerAddr(handle(h))),
};

/** `phira-timer` (the capability `timer` must be granted). */
export const TIMER: InterfaceTable = {
  setTimer: fn("timer", "result", (ctx, [delay, id]) => {
    ctx.facilities.timers.set(num(delay, "delay-ms"), str(id, "timer-id"));
  }),
  clearTimer: fn("timer", "result", (ctx, [id]) => {
    ctx.facilities.timers.clear(str(id, "timer-id"));
  }),
};

interface PlayerJson {
  user_id: number;
  display_name: string;
  is_monitor: boolean;
  is_ready: boolean;
  is_host: boolean;
  is_finished: boolean;
  score: number | null;
  accuracy: number | null;
}

interface RoomStateJson {
  room_id: string;
  room_uuid: string;
  host_id: number | null;
  locked: boolean;
  hidden: boolean;
  player_count: number;
  monitor_count: number;
  players: PlayerJson[];
  current_round: { round_id: string; chart_id: number | null; chart_name: string | null; phase: string } | null;
}

function player(p: PlayerJson): Record<string, unknown> {
  return {
    userId: p.user_id,
    displayName: p.display_name,
    isMonitor: p.is_monitor,
    isReady: p.is_ready,
    isHost: p.is_host,
    isFinished: p.is_finished,
    score: p.score ?? undefined,
    accuracy: p.accuracy ?? undefined,
  };
}

async function roomState(ctx: HostContext, room: unknown): Promise<RoomStateJson> {
  return await ctx.op("room.state", { room_id: str(room, "room-id") }) as RoomStateJson;
}

/** `phira-room-state`. */
export const ROOM_STATE: InterfaceTable = {
  getRoomState: fn("state.read", "result", async (ctx, [room]) => {
    const s = await roomState(ctx, room);
    return {
      roomId: s.room_id,
      roomUuid: s.room_uuid,
      hostId: s.host_id ?? undefined,
      locked: s.locked,
      hidden: s.hidden,
      playerCount: s.player_count,
      monitorCount: s.monitor_count,
      players: s.players.map(player),
      currentRound: s.current_round
        ? {
          roundId: s.current_round.round_id,
          chartId: s.current_round.chart_id ?? undefined,
          chartName: s.current_round.chart_name ?? undefined,
          phase: s.current_round.phase,
        }
        : undefined,
    };
  }),
  getRoomPlayers: fn("state.read", "result", async (ctx, [room]) => (await roomState(ctx, room)).players.map(player)),
  getPlayerStatus: fn("state.read", "result", async (ctx, [room, user]) => {
    const id = num(user, "user-id");
    const found = (await roomState(ctx, room)).players.find((p) => p.user_id === id);
    return found ? player(found) : undefined;
  }),
  listRooms: fn("state.read", "result", async (ctx) => {
    const list = await ctx.op("room.list", {}) as { rooms: { room_id: string }[] };
    return list.rooms.map((r) => r.room_id);
  }),
};

/** `phira-handler`. */
export const HANDLER: InterfaceTable = {
  registerHandler: fn("plugin.register", "result", (ctx, [desc]) => {
    const d = desc as Record<string, unknown> | null;
    ctx.facilities.handlers.register({
      method: str(d?.method, "method"),
      description: String(d?.description ?? ""),
      requestSchema: typeof d?.requestSchema === "string" ? d.requestSchema : null,
      responseSchema: typeof d?.responseSchema === "string" ? d.responseSchema : null,
    });
  }),
  unregisterHandler: fn("plugin.register", "result", (ctx, [method]) => {
    ctx.facilities.handlers.unregister(str(method, "method"));
  }),
  listHandlers: fn(null, "result", (ctx) =>
    ctx.facilities.handlers.list().map((h) => ({
      method: h.method,
      description: h.description,
      requestSchema: h.requestSchema ?? undefined,
      responseSchema: h.responseSchema ?? undefined,
    }))),
  // Capabilities come from the plugin's capabilities file only: this answers whether it has one, it never grants.
  requestCapability: fn(null, "result", (ctx, [capability]) => {
    const c = str(capability, "capability");
    if (!(CAPABILITIES as readonly string[]).includes(c)) throw new Error(`unknown capability "${c}"`);
    return ctx.has(c as (typeof CAPABILITIES)[number]);
  }),
};
