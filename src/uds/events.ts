/**
 * OpenUDS events (spec 3 §6.4): domain events of the bus mapped to
 * `{event_type, data}` with the documented fields (extras are listed in
 * `docs/openuds.md`), and the subscription patterns (`*`, `room.*`, exact).
 *
 * @module
 */

import type { DomainEvent } from "../events/mod.ts";
import type { PartialRoomData, RecordData } from "../protocol/mod.ts";

/** Event types a client can subscribe to. `server.heartbeat` is sent to every client anyway. */
export const UDS_EVENT_TYPES = [
  "room.created",
  "room.updated",
  "room.deleted",
  "room.joined",
  "room.left",
  "round.started",
  "round.scored",
  "round.completed",
  "chat.message",
  "user.online",
  "user.offline",
  "server.heartbeat",
] as const;

/** An OpenUDS event type. */
export type UdsEventType = (typeof UDS_EVENT_TYPES)[number];

/** An event ready to be framed. */
export interface UdsEvent {
  readonly event_type: UdsEventType;
  readonly data: Readonly<Record<string, unknown>>;
}

const KNOWN: ReadonlySet<string> = new Set(UDS_EVENT_TYPES);
const PREFIXES: ReadonlySet<string> = new Set(UDS_EVENT_TYPES.map((t) => t.split(".")[0]!));

/** Why `pattern` is not a valid subscription pattern, or null. */
export function patternProblem(pattern: unknown): string | null {
  if (typeof pattern !== "string") return "event types must be strings";
  if (pattern === "*" || KNOWN.has(pattern)) return null;
  if (pattern.endsWith(".*") && PREFIXES.has(pattern.slice(0, -2))) return null;
  return `unknown event type "${pattern}" (known: ${UDS_EVENT_TYPES.join(", ")}; wildcards * and <prefix>.*)`;
}

/** `*` matches all; `room.*` matches `room.<anything>`; otherwise exact. */
export function matches(pattern: string, type: string): boolean {
  if (pattern === "*") return true;
  if (pattern.endsWith(".*")) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

/** Only the fields that changed (`PartialRoomData` keeps null for the others). */
function changes(c: PartialRoomData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.host !== null) out.host_id = c.host;
  if (c.lock !== null) out.locked = c.lock;
  if (c.cycle !== null) out.cycle = c.cycle;
  if (c.chart !== null) out.chart_id = c.chart;
  if (c.state !== null) out.state = c.state;
  return out;
}

/** A record as an OpenUDS result. */
export function resultJson(r: RecordData): Record<string, unknown> {
  return {
    user_id: r.player,
    record_id: r.id,
    score: r.score,
    accuracy: r.accuracy,
    perfect: r.perfect,
    good: r.good,
    bad: r.bad,
    miss: r.miss,
    max_combo: r.max_combo,
    full_combo: r.full_combo,
    std: r.std,
  };
}

/** The OpenUDS event for a domain event; null for kinds with no OpenUDS event (touches, judges). */
export function toUdsEvent(e: DomainEvent): UdsEvent | null {
  switch (e.kind) {
    case "room.created":
      return {
        event_type: "room.created",
        data: { room_id: e.room, uuid: e.uuid, data: e.data, hidden: e.hidden, created_by: e.by },
      };
    case "room.updated":
      return { event_type: "room.updated", data: { room_id: e.room, changes: changes(e.changes), uuid: e.uuid } };
    case "room.deleted":
      return { event_type: "room.deleted", data: { room_id: e.room, uuid: e.uuid } };
    case "room.joined":
      return {
        event_type: "room.joined",
        data: { room_id: e.room, user_id: e.user, monitor: e.monitor, name: e.name, uuid: e.uuid },
      };
    case "room.left":
      return {
        event_type: "room.left",
        data: { room_id: e.room, user_id: e.user, reason: e.reason, monitor: e.monitor, name: e.name, uuid: e.uuid },
      };
    case "round.started":
      return {
        event_type: "round.started",
        data: { room_id: e.room, round_id: e.round, chart_id: e.chart, chart_name: e.chartName, players: e.players },
      };
    case "round.scored":
      return {
        event_type: "round.scored",
        data: { room_id: e.room, ...resultJson(e.record), user_id: e.user, chart_id: e.chart, round_id: e.round },
      };
    case "round.completed":
      return {
        event_type: "round.completed",
        data: {
          room_id: e.room,
          round_id: e.round,
          results: e.data.records.map(resultJson),
          chart_id: e.chart,
          chart_name: e.chartName,
          aborted: e.aborted,
          started_at: e.startedAt,
        },
      };
    case "chat.message":
      return { event_type: "chat.message", data: { room_id: e.room, user_id: e.user, content: e.content } };
    case "user.online":
      return { event_type: "user.online", data: { user_id: e.user, name: e.name, language: e.language } };
    case "user.offline":
      return { event_type: "user.offline", data: { user_id: e.user, name: e.name } };
    default:
      return null;
  }
}
