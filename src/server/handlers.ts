/**
 * The command handlers: one per `ClientCommand` variant in a table the
 * compiler checks for completeness (style-models §8), the last link of the
 * command pipeline. Preconditions that need the registry ("no room",
 * "already in room", "room not found") are checked here in the official
 * order; the rest is the room machine's.
 *
 * @module
 */

import type { ClientCommandType } from "../protocol/mod.ts";
import {
  abort,
  cancelReady,
  chat,
  createRoom,
  cycleRoom,
  joinRoom,
  leaveRoom,
  lockRoom,
  played,
  ready,
  requestStart,
  type Room,
  selectChart,
  selectChartProblem,
  type Transition,
} from "../room/mod.ts";
import type { CommandContext } from "./command_context.ts";
import type { ChartMeta, UpstreamApi } from "./context.ts";
import type { ServerCore, User } from "./core.ts";
import { login } from "./login.ts";
import { LoginAdmission } from "./login_admission.ts";
import type { CommandLink } from "./pipeline.ts";
import type { RoomMonitor } from "./room_monitor.ts";
import { relayTelemetry } from "./telemetry.ts";
import { hedged } from "../util/hedge.ts";

/**
 * When the record fetch behind `Played` has not answered after this long, a
 * second request races it (`src/util/hedge.ts`): at the end of many rounds
 * at once a few requests stall for seconds while the rest answer at once.
 */
export const RECORD_HEDGE_MS = 1500;

/** Longest chat message, in characters (code points), spec 3 §8. */
export const CHAT_MAX_CHARS = 200;

/** Code points of `text`, counted without allocating (a CJK character is one, not three bytes). */
function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

type Handler<T extends ClientCommandType> = (core: ServerCore, cc: CommandContext<T>) => void | Promise<void>;

/** The user of an active session and their room; replies `no room` when there is none. */
function inRoom<T extends ClientCommandType>(core: ServerCore, cc: CommandContext<T>): [User, Room] | null {
  const user = cc.user;
  const room = user ? core.roomOf(user) : undefined;
  if (!user || !room) {
    cc.fail("no-room");
    return null;
  }
  return [user, room];
}

/** Runs a room transition and applies it, replying to this command. */
function run<T extends ClientCommandType>(
  core: ServerCore,
  cc: CommandContext<T>,
  room: Room,
  step: (room: Room) => Transition,
): void {
  core.apply(room.id, step(room), cc);
}

/**
 * After an upstream lookup the world may have moved on: the session may be
 * closed or superseded, or the user may have left the room.
 */
function stillCurrent<T extends ClientCommandType>(core: ServerCore, cc: CommandContext<T>, user: User): boolean {
  if (cc.session.open && user.session === cc.session) return true;
  core.counters.inc("stale_commit_prevented");
  return false;
}

/**
 * The record behind `Played`, within `record_budget_ms` in all: a request
 * still unanswered after {@link RECORD_HEDGE_MS} gets a second one beside it,
 * with the rest of the budget (both retry failures inside their budgets).
 */
function fetchRecord(core: ServerCore, room: Room, id: number): ReturnType<UpstreamApi["record"]> {
  const upstream = core.upstreamFor(room);
  const budgetMs = core.ctx.config.record_budget_ms;
  const clock = core.ctx.clock;
  const started = clock.monotonic();
  const hedgeMs = Math.min(RECORD_HEDGE_MS, Math.floor(budgetMs / 2));
  return hedged(clock, hedgeMs, (signal) => {
    const left = Math.max(1, budgetMs - (clock.monotonic() - started));
    return upstream.record(id, { budgetMs: left, signal });
  });
}

/** How long a late-join prompt stays valid: joining again within it confirms (spec 3 §3.1 rule 6). */
export const LATE_JOIN_CONFIRM_MS = 30_000;

/** Features the handlers hand commands to. */
export interface HandlerDeps {
  readonly roomMonitor: RoomMonitor;
}

/** The handler table of one server, as the pipeline's last link. */
export function commandHandlers(deps: HandlerDeps): CommandLink {
  // A late-join prompt shown to a user, per user: joining the same room again before `until` confirms.
  const joinPrompts = new WeakMap<User, { readonly room: string; readonly until: number }>();
  // Logins in flight per client address and recently rejected tokens, of this server (`login_admission.ts`).
  const admission = new LoginAdmission();
  const handlers: { [K in ClientCommandType]: Handler<K> } = {
    Ping: (_core, cc) => void cc.replyCommand({ type: "Pong" }),
    Authenticate: (core, cc) => login(core, cc, admission),
    ConsoleAuthenticate: (core, cc) => login(core, cc, admission),
    GameMonitorAuthenticate: (core, cc) => login(core, cc, admission),
    RoomMonitorAuthenticate: (_core, cc) => deps.roomMonitor.login(cc),
    QueryRoomInfo: (_core, cc) => deps.roomMonitor.query(cc),
    Touches: (core, cc) => relayTelemetry(core, cc),
    Judges: (core, cc) => relayTelemetry(core, cc),
    Chat: (core, cc) => {
      const found = inRoom(core, cc);
      if (!found) return;
      if (!core.ctx.config.chat_enabled) return cc.fail("chat-disabled");
      // spec 3 §8: the limit is 200 characters; the codec only bounds the bytes.
      if (codePoints(cc.cmd.message) > CHAT_MAX_CHARS) return cc.fail("chat-too-long", { max: CHAT_MAX_CHARS });
      run(core, cc, found[1], (room) => chat(room, found[0].id, cc.cmd.message, core.roomCtx()));
    },
    CreateRoom: (core, cc) => {
      const user = cc.user!;
      const { config } = core.ctx;
      // A game-monitor session may only spectate (protocol.md §3.5): creating a
      // room would make it player -id; refused like other commands its session may not send.
      if (user.category === "game-monitor") return cc.fail("invalid-session-command");
      if (core.roomOf(user)) return cc.fail("already-in-room");
      if (core.rooms.has(cc.cmd.id)) return cc.fail("create-id-occupied");
      if (!core.switches.roomCreation) return cc.fail("room-creation-disabled");
      if (config.max_rooms !== null && core.rooms.size >= config.max_rooms) return cc.fail("server-room-limit");
      const t = createRoom(cc.cmd.id, { id: user.id, name: user.name, monitor: false }, core.roomCtx(), {
        maxPlayers: config.max_users_per_room,
      });
      core.apply(cc.cmd.id, t, cc);
    },
    JoinRoom: (core, cc) => {
      const user = cc.user!;
      if (core.roomOf(user)) return cc.fail("already-in-room");
      const room = core.rooms.get(cc.cmd.id);
      if (!room) return cc.fail("room-not-found");
      if (user.category === "game-monitor" && !cc.cmd.monitor) return cc.fail("game-monitor-must-monitor");
      // Spectating needs the `monitors` permission; game monitors are checked by their real id.
      const realId = user.category === "game-monitor" ? -user.id : user.id;
      const canMonitor = core.ctx.config.monitors.includes(realId);
      const now = core.ctx.clock.now();
      const pending = joinPrompts.get(user);
      const confirmedLateJoin = pending !== undefined && pending.room === room.id && pending.until >= now;
      const t = joinRoom(room, { id: user.id, name: user.name, monitor: cc.cmd.monitor }, core.roomCtx(), {
        canMonitor,
        confirmedLateJoin,
      });
      const reply = t.effects.find((e) => e.t === "reply");
      const prompted = reply?.t === "reply" && !reply.result.ok &&
        reply.result.error.key === "join-game-ongoing-confirm";
      if (prompted) joinPrompts.set(user, { room: room.id, until: now + LATE_JOIN_CONFIRM_MS });
      else joinPrompts.delete(user);
      core.apply(room.id, t, cc);
    },
    LeaveRoom: (core, cc) => {
      const user = cc.user!;
      if (core.roomOf(user) === undefined && cc.session.clientInRoom) {
        // The client still shows a room the server already took it out of (the
        // room was closed, or an operator removed it): let it leave cleanly.
        return cc.ok();
      }
      const found = inRoom(core, cc);
      if (found) run(core, cc, found[1], (room) => leaveRoom(room, found[0].id, core.roomCtx()));
    },
    LockRoom: (core, cc) => {
      const found = inRoom(core, cc);
      if (found) run(core, cc, found[1], (room) => lockRoom(room, found[0].id, cc.cmd.lock, core.roomCtx()));
    },
    CycleRoom: (core, cc) => {
      const found = inRoom(core, cc);
      if (found) run(core, cc, found[1], (room) => cycleRoom(room, found[0].id, cc.cmd.cycle, core.roomCtx()));
    },
    SelectChart: async (core, cc) => {
      const found = inRoom(core, cc);
      if (!found) return;
      const [user, room] = found;
      const problem = selectChartProblem(room, user.id);
      if (problem) return cc.fail(problem);
      const id = cc.cmd.id;
      let name: string;
      let meta: ChartMeta | undefined;
      try {
        meta = await core.upstreamFor(room).chart(id, { budgetMs: core.ctx.config.auth_budget_ms });
        name = meta.name;
      } catch (error) {
        // spec 3 §3.1 rule 5: on failure the name falls back to `#<id>`.
        core.ctx.log.info("chart lookup failed, using fallback name", {
          room: room.id,
          chart: id,
          reason: String(error),
        });
        name = `#${id}`;
      }
      if (!stillCurrent(core, cc, user)) return cc.fail("connection-replaced");
      const now = core.roomOf(user);
      if (!now) return cc.fail("no-room");
      run(core, cc, now, (r) => selectChart(r, user.id, { id, name, durationSecs: null }, core.roomCtx()));
      // The metadata is handed on: the duration resolver need not fetch it again.
      if (core.rooms.get(now.id)?.chart?.id === id) core.resolveChartDuration(now.id, id, meta);
    },
    RequestStart: (core, cc) => {
      const found = inRoom(core, cc);
      if (found) run(core, cc, found[1], (room) => requestStart(room, found[0].id, core.roomCtx()));
    },
    Ready: (core, cc) => {
      const found = inRoom(core, cc);
      if (found) run(core, cc, found[1], (room) => ready(room, found[0].id, core.roomCtx()));
    },
    CancelReady: (core, cc) => {
      const found = inRoom(core, cc);
      if (found) run(core, cc, found[1], (room) => cancelReady(room, found[0].id, core.roomCtx()));
    },
    Played: async (core, cc) => {
      const found = inRoom(core, cc);
      if (!found) return;
      const [user] = found;
      let record;
      try {
        record = await fetchRecord(core, found[1], cc.cmd.id);
      } catch (error) {
        // The official server passes the HTTP client's error text through (protocol.md §6).
        return cc.failText(error instanceof Error ? error.message : String(error));
      }
      if (record.player !== user.id) return cc.fail("invalid-record");
      if (!stillCurrent(core, cc, user)) return cc.fail("connection-replaced");
      const room = core.roomOf(user);
      if (!room) return cc.fail("no-room");
      const data = { ...record, std: record.std ?? 0, std_score: record.std_score ?? 0 };
      run(core, cc, room, (r) => played(r, user.id, data, core.roomCtx()));
    },
    Abort: (core, cc) => {
      const found = inRoom(core, cc);
      if (found) run(core, cc, found[1], (room) => abort(room, found[0].id, core.roomCtx()));
    },
  };
  return (cc) => (handlers[cc.cmd.type] as Handler<ClientCommandType>)(cc.core, cc);
}
