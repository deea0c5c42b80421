/**
 * `/ws/live`: the web monitor's spectator WebSocket (extended.md §5.6)
 * served by the game server itself, so a browser can spectate without the
 * monitor proxy.
 *
 * Each viewer gets a virtual game session over an in-memory pipe, bridged
 * by {@link LiveBridge} (`live_bridge.ts`, shared with the monitor proxy):
 * `GameMonitorAuthenticate(token)` (the server acts under the negated id with
 * " (monitor)" appended), then browser `WsCommand`s and `LiveEvent` frames.
 * The viewer's real id is checked against `monitors` through the upstream
 * before the session is opened; a refusal is an `Authenticate(Err)` frame
 * and close code 1008. At most `maxLiveViewers` sessions, and each client
 * address its share of them (`StreamTracker`). Browser messages over
 * {@link MAX_COMMAND_BYTES} are refused as they arrive (close 1009,
 * `ws_upgrade.ts`).
 *
 * @module
 */

import type { ClientEvent, PhiraClient } from "../client/mod.ts";
import { createPipe } from "../util/pipe.ts";
import type { HttpContext } from "./context.ts";
import { jsonError } from "./errors.ts";
import { LiveBridge, MAX_COMMAND_BYTES, SessionUnavailable } from "./live_bridge.ts";
import { encodeLiveEvent } from "./live_protocol.ts";
import { streamRefused } from "./sse.ts";
import { isUpgrade } from "./ws_events.ts";

/** Largest token (protocol `Varchar<32>`). */
const MAX_TOKEN_BYTES = 32;

/** Upgrades `/ws/live`: 426 without an upgrade, 401 without a token, 400 for a malformed one, 503 when full. */
export async function openLive(req: Request, ip: string, ctx: HttpContext): Promise<Response> {
  if (!isUpgrade(req)) return jsonError(426, "expected a WebSocket upgrade");
  const token = new URL(req.url).searchParams.get("token");
  if (!token) return jsonError(401, "missing token (query parameter token)");
  if (new TextEncoder().encode(token).length > MAX_TOKEN_BYTES) return jsonError(400, "invalid token");
  const full = ctx.live.refusal(ip);
  if (full) return streamRefused(full, "too many spectators");
  const refusal = await checkViewer(ctx, token);
  return ctx.upgrades.upgrade(req, MAX_COMMAND_BYTES, (socket) => {
    // The limits are checked again: other viewers may have arrived during the upstream call and the handshake.
    const again = ctx.live.refusal(ip);
    const reason = refusal ??
      (again === "full" ? "too many spectators" : again ? "too many spectators from this address" : null);
    if (reason === null) {
      const bridge = new LiveBridge({
        socket,
        token,
        open: virtualSession(ctx, ip),
        wsBufferLimit: ctx.options.wsBufferLimit,
        onEnd: (b) => ctx.live.delete(b),
        onLogin: (user) => ctx.log.info("spectator connected", { user }),
      });
      ctx.live.tryAdd(bridge, ip);
      return;
    }
    socket.onopen = () => {
      socket.send(encodeLiveEvent({ type: "Authenticate", result: { ok: false, error: reason } }));
      socket.close(1008, "refused");
    };
  });
}

/** Why the token's owner may not spectate, or null (spec: checked through the upstream and `monitors`). */
async function checkViewer(ctx: HttpContext, token: string): Promise<string | null> {
  try {
    const identity = await ctx.core.ctx.upstream.me(token, { budgetMs: ctx.config.auth_budget_ms });
    if (ctx.config.monitors.includes(identity.id)) return null;
    ctx.log.info("spectator refused: not in monitors", { user: identity.id });
    return "not allowed to spectate";
  } catch (error) {
    ctx.log.info("spectator authentication failed", { reason: error instanceof Error ? error.message : String(error) });
    return "authentication failed";
  }
}

/** Opens a viewer's virtual game session over an in-memory pipe. */
function virtualSession(ctx: HttpContext, ip: string) {
  return async (onEvent: (event: ClientEvent) => void): Promise<PhiraClient> => {
    // The game client is loaded with the first viewer, not with the server (issue 15, "Load on demand").
    const { PhiraClient } = await import("../client/mod.ts");
    const { server, clock, config } = ctx;
    const [serverEnd, clientEnd] = createPipe();
    if (!server.attach(serverEnd, ip)) {
      clientEnd.close();
      throw new SessionUnavailable("server unavailable");
    }
    return new PhiraClient(clientEnd, {
      clock,
      // Keep the virtual session inside the server's heartbeat timeout.
      pingIntervalMs: Math.max(1000, Math.floor((config.heartbeat_timeout * 1000) / 3)),
      eventBufferLimit: 0,
      logLimit: 0,
      onEvent,
    });
  };
}
