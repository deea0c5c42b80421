/**
 * The event streams: `/api/events` and `/rooms/listen` (profile S),
 * `/api/rooms/listen` (profile R, served from the stream registry so a
 * plugin may replace it, spec 1 §4.3 rule 3), registered plugin streams and
 * the `/api/ws` WebSocket. Orders follow spec 1 §3.
 *
 * @module
 */

import type { Hono } from "hono";
import type { TimerHandle } from "../util/clock.ts";
import { roomData } from "../room/mod.ts";
import { clientIp, type HttpContext, type HttpEnv, VERSION } from "./context.ts";
import { jsonError } from "./errors.ts";
import { ALL_EVENTS, BASIC_EVENTS, type HubEventName, isPublic, kindsFor, ROOM_EVENTS } from "./hub.ts";
import type { RenderedEvent } from "./hub.ts";
import { roomDataJson } from "./json.ts";
import { visibleRooms } from "./routes_rooms.ts";
import { SSE_HEADERS, sseComment, sseEvent, SseStream, streamRefused } from "./sse.ts";
import { type RegisteredStream, type SseOutput, type SseRegistry, TRANSLATE_TIMEOUT_MS } from "./sse_registry.ts";
import { openWsEvents } from "./ws_events.ts";

/** Path of the profile R stream. */
export const BASIC_STREAM_PATH = "/api/rooms/listen";

/** Spec 1 §6: profile R's keep-alive is an event named `keepalive`. */
const KEEPALIVE_EVENT = sseEvent("keepalive", {});
/** Profile S keep-alive comment (extended.md §4.2). */
const KEEPALIVE_COMMENT = sseComment("keep-alive");
/** Marks a translation that did not answer in time. */
const LATE = Symbol("late");
/** SSE event names a translate callback may choose (no line breaks can sneak into the frame). */
const EVENT_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** How one SSE response is fed. */
interface StreamPlan {
  readonly names: ReadonlySet<HubEventName>;
  /** Framed text sent first; computed in the same turn as the subscription, so no event falls between. */
  readonly initial: () => string[];
  readonly render: (event: RenderedEvent) => string | null | Promise<string | null>;
  readonly keepAlive: string | null;
}

function standard(event: RenderedEvent): string {
  return `event: ${event.type}\ndata: ${event.json}\n\n`;
}

/**
 * Opens an SSE response over the bus, or 503 when too many streams are open.
 * A HEAD request gets the headers only (Hono answers HEAD through the GET
 * route and would drop an opened body without cancelling it).
 */
function openSse(ctx: HttpContext, req: Request, ip: string, plan: StreamPlan): Response {
  if (req.method === "HEAD") return new Response(null, { headers: SSE_HEADERS });
  const refusal = ctx.tracker.refusal(ip);
  if (refusal) return streamRefused(refusal);
  const subscription = ctx.bus.subscribe({
    kinds: kindsFor(plan.names),
    capacity: ctx.options.streamCapacity,
    filter: isPublic,
  });
  const stream: SseStream = new SseStream({
    subscription,
    initial: plan.initial(),
    render: (event) => {
      const hub = ctx.hub.render(event);
      return hub && plan.names.has(hub.type) ? plan.render(hub) : null;
    },
    keepAlive: plan.keepAlive,
    keepAliveMs: ctx.options.keepAliveMs,
    clock: ctx.clock,
    onClose: () => ctx.tracker.delete(stream),
  });
  ctx.tracker.tryAdd(stream, ip);
  return new Response(stream.body, { headers: SSE_HEADERS });
}

/** Serves the registered stream at `path` to client `ip`, or null when none is registered there. */
export function serveRegisteredStream(ctx: HttpContext, req: Request, path: string, ip: string): Response | null {
  const entry = ctx.streams.get(path);
  return entry ? openSse(ctx, req, ip, registeredPlan(ctx, entry)) : null;
}

function registeredPlan(ctx: HttpContext, entry: RegisteredStream): StreamPlan {
  let warned = false;
  const warn = (msg: string, fields: Record<string, unknown>) => {
    // One warning per connection: a broken translate callback must not flood the log.
    if (warned) return;
    warned = true;
    ctx.log.warn(msg, { stream: entry.path, owner: entry.owner, ...fields });
  };
  const frame = (out: SseOutput | null): string | null => {
    if (out === null) return null;
    if (!EVENT_NAME.test(out.event)) {
      warn("stream translate returned an invalid event name; event skipped", { event: String(out.event) });
      return null;
    }
    return sseEvent(out.event, out.data);
  };
  /** An asynchronous translation, bounded in time: a late answer skips the event (the stream goes on). */
  const settle = async (pending: Promise<SseOutput | null>): Promise<string | null> => {
    let timer: TimerHandle | undefined;
    const late = new Promise<typeof LATE>((
      resolve,
    ) => (timer = ctx.clock.setTimeout(() => resolve(LATE), TRANSLATE_TIMEOUT_MS)));
    try {
      const out = await Promise.race([pending, late]);
      if (out !== LATE) return frame(out);
      warn("stream translate did not answer in time; event skipped", { timeout_ms: TRANSLATE_TIMEOUT_MS });
      return null;
    } catch (error) {
      warn("stream translate callback failed; event skipped", { error: String(error) });
      return null;
    } finally {
      ctx.clock.clearTimeout(timer);
    }
  };
  return {
    names: entry.events ?? ALL_EVENTS,
    initial: () => entry.ready ? [sseEvent("ready", { stream: entry.path.slice(1), version: VERSION })] : [],
    render: (event) => {
      let out;
      try {
        out = entry.translate({ event_type: event.type, data: event.data });
      } catch (error) {
        warn("stream translate callback failed; event skipped", { error: String(error) });
        return null;
      }
      return out instanceof Promise ? settle(out) : frame(out);
    },
    keepAlive: entry.keepAlive === "event" ? KEEPALIVE_EVENT : KEEPALIVE_COMMENT,
  };
}

/**
 * Registers the host's profile R stream (spec 1 §4.2, §6): no `ready`, live
 * events only, `keepalive` events every 15 s. A plugin registering the same
 * path replaces it.
 */
export function registerBasicStream(streams: SseRegistry): void {
  streams.register({
    path: BASIC_STREAM_PATH,
    owner: "host",
    events: [...BASIC_EVENTS],
    translate: ({ event_type, data }) => ({ event: event_type, data }),
    ready: false,
    keepAlive: "event",
  });
}

/** Registers `/api/events`, `/rooms/listen`, `/api/rooms/listen` and `/api/ws`. */
export function streamRoutes(app: Hono<HttpEnv>, ctx: HttpContext): void {
  app.get("/api/events", (c) =>
    openSse(ctx, c.req.raw, clientIp(c.env), {
      names: ALL_EVENTS,
      initial: () => [sseEvent("ready", { stream: "events", version: VERSION })],
      render: standard,
      keepAlive: KEEPALIVE_COMMENT,
    }));
  app.get("/rooms/listen", (c) =>
    openSse(ctx, c.req.raw, clientIp(c.env), {
      names: ROOM_EVENTS,
      initial: () => {
        // extended.md §10 item 3: the snapshot uses update_room with full data, not create_room.
        const rooms = visibleRooms(ctx.core);
        return [
          sseEvent("ready", { stream: "rooms", rooms: rooms.length }),
          ...rooms.map((r) => sseEvent("update_room", { room: r.id, data: roomDataJson(roomData(r)) })),
        ];
      },
      render: standard,
      keepAlive: KEEPALIVE_COMMENT,
    }));
  app.get(BASIC_STREAM_PATH, (c) =>
    serveRegisteredStream(ctx, c.req.raw, BASIC_STREAM_PATH, clientIp(c.env)) ??
      jsonError(404, `SSE stream not found: ${BASIC_STREAM_PATH}`));
  app.get("/api/ws", (c) => openWsEvents(c.req.raw, clientIp(c.env), ctx));
}
