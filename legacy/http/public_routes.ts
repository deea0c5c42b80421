/**
 * The public part of the legacy HTTP API (spec 3 §4.7): `GET /room` and
 * `GET /stats`, with real values.
 *
 * `/room` answers the spec's shape -- `{rooms: [{id, name, players,
 * maxPlayers, status}], total}` with `total` the number of rooms -- or, with
 * `?format=tphira`, the shape tphira and the lua-cpp server really served
 * (and that bots were written against): `{rooms: [{roomid, cycle, lock,
 * host: {name, id: "<string>"}, state, chart: {name, id: "<string>"} |
 * null, players: [{name, id}]}], total}` with `total` the number of
 * players. Either way hidden rooms and rooms whose id starts with `_`
 * (virtual rooms) are left out, sorted by id.
 *
 * @module
 */

import type { Hono } from "hono";
import type { Room } from "../../src/room/mod.ts";
import type { LegacyContext } from "../context.ts";
import { stateName } from "../views.ts";
import { json } from "./respond.ts";

/** A room of `/room` in the spec's shape. */
export interface SpecRoom {
  readonly id: string;
  readonly name: string;
  readonly players: number;
  readonly maxPlayers: number;
  readonly status: string;
}

function listed(ctx: LegacyContext): Room[] {
  return [...ctx.core.rooms.values()]
    .filter((r) => !r.hidden && !r.id.startsWith("_"))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** `/room` in the spec's shape. */
export function roomsSpec(ctx: LegacyContext): { rooms: SpecRoom[]; total: number } {
  const rooms = listed(ctx).map((r) => ({
    id: r.id,
    name: r.id,
    players: r.players.length,
    maxPlayers: r.maxPlayers,
    status: stateName(r),
  }));
  return { rooms, total: rooms.length };
}

/** `/room` in tphira's shape. */
export function roomsTphira(ctx: LegacyContext): { rooms: unknown[]; total: number } {
  let total = 0;
  const rooms = listed(ctx).map((r) => {
    total += r.players.length;
    const host = r.players.find((p) => p.id === r.hostId);
    return {
      roomid: r.id,
      cycle: r.cycle,
      lock: r.locked,
      host: host ? { name: host.name, id: String(host.id) } : { name: "", id: String(r.hostId ?? -1) },
      state: stateName(r),
      chart: r.chart ? { name: r.chart.name, id: String(r.chart.id) } : null,
      players: r.players.map((p) => ({ name: p.name, id: p.id })),
    };
  });
  return { rooms, total };
}

/** Adds `/room` and `/stats`. */
export function publicRoutes(app: Hono, ctx: LegacyContext): void {
  app.get("/room", (c) => json(200, c.req.query("format") === "tphira" ? roomsTphira(ctx) : roomsSpec(ctx)));
  app.get("/stats", () => {
    const s = ctx.ops.context;
    const counts = s.counts();
    return json(200, {
      users: counts.users,
      sessions: counts.sessions,
      rooms: counts.rooms,
      uptime: s.uptimeSecs(),
      version: s.version,
    });
  });
}
