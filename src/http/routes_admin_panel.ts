/**
 * The admin panel's overview and room switches (issue 13, spec 2 §4.2):
 * `GET /admin/api/state` (server status, online players, rooms with chart,
 * lock and cycle, bans -- everything in one answer, so one request per
 * refresh) and `POST /admin/api/rooms/<name>/lock|cycle`. Thin adapters:
 * parse -> `ops.call` as the `http-admin` actor -> render
 * (`admin_state.ts`). Registered after {@link adminApiRoutes}, whose
 * middleware checks the session and refuses cross-site requests first.
 *
 * @module
 */

import type { Hono } from "hono";
import * as z from "../util/zod.ts";
import type { RoomInfo, UserView } from "../ops/mod.ts";
import { roomIdProblem } from "../protocol/mod.ts";
import type { UserBan } from "../server/mod.ts";
import { adminState, type AdminStateSources } from "./admin_state.ts";
import type { HttpContext, HttpEnv } from "./context.ts";
import { jsonError } from "./errors.ts";
import { type AdminContext, callAdminOp, readAdminBody } from "./routes_admin.ts";

const LockBody = z.object({ locked: z.boolean() });
const CycleBody = z.object({ cycle: z.boolean() });

/** Registers the overview and the room switches. */
export function adminPanelRoutes(app: Hono<HttpEnv>, ctx: HttpContext): void {
  const { log } = ctx;

  app.get("/admin/api/state", async (c) => {
    const answers = await Promise.all([
      callAdminOp(ctx, c, "server.status", {}),
      callAdminOp(ctx, c, "server.stats", {}),
      callAdminOp(ctx, c, "runtime.persistence", {}),
      callAdminOp(ctx, c, "room.list", { detail: true }),
      callAdminOp(ctx, c, "users.list", {}),
      callAdminOp(ctx, c, "player.banlist", {}),
    ]);
    const failed = answers.find((a) => a instanceof Response);
    if (failed) return failed as Response;
    const [status, stats, persistence, rooms, users, bans] = answers;
    return c.json(adminState({
      serverName: ctx.config.server_name,
      status: status as AdminStateSources["status"],
      stats: stats as AdminStateSources["stats"],
      persistence: persistence as AdminStateSources["persistence"],
      health: ctx.health(),
      rooms: (rooms as { rooms: RoomInfo[] }).rooms,
      users: (users as { users: UserView[] }).users,
      bans: (bans as { bans: UserBan[] }).bans,
    }));
  });

  /** A room switch: `{<field>: boolean}` -> the operation taking `[room_id, value]`. */
  const roomSwitch = <K extends string>(
    path: string,
    op: string,
    schema: z.ZodMiniType<Record<K, boolean>>,
    field: K,
  ) =>
    app.post(`/admin/api/rooms/:name/${path}`, async (c: AdminContext) => {
      const name = c.req.param("name")!;
      if (roomIdProblem(name)) return jsonError(400, `invalid room name ${JSON.stringify(name)}`);
      const parsed = await readAdminBody(c, schema);
      if (parsed instanceof Response) return parsed;
      const value = parsed[field];
      const r = await callAdminOp(ctx, c, op, { room_id: name, [field]: value });
      if (r instanceof Response) return r;
      log.info(`admin set ${field} of a room`, { room: name, [field]: value });
      return c.json({ ok: true, [field]: value });
    });
  roomSwitch("lock", "room.lock", LockBody, "locked");
  roomSwitch("cycle", "room.cycle", CycleBody, "cycle");
}
