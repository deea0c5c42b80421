/**
 * `command.veto`, `command.unveto`, `command.vetoes`: the declarative
 * command vetoes of plugins (`vetoes.ts`) as operations. A rule about a
 * room needs `room.manage`; a rule about a user needs `admin` too. A plugin
 * sees and removes only its own rules.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { type Actor, actorLabel, describeActor, OpsError, p, permits, type ServerOp, serverOp } from "../ops/mod.ts";
import type { CommandVetoes } from "./vetoes.ts";

/** `command.veto`, `command.unveto`, `command.vetoes`: declarative vetoes through the command pipeline. */
export function vetoOps(vetoes: CommandVetoes, now: () => number): ServerOp[] {
  const ownerOf = (actor: Actor) => actor.kind === "plugin" ? actor.id : actorLabel(actor).source;
  return [
    serverOp({
      name: "command.veto",
      summary: "refuse commands of a user (needs admin) or of everyone in a room, with a reason, for a while",
      permission: "room.manage",
      mutates: true,
      params: {
        user_id: z.optional(p.userId()),
        room_id: z.optional(p.roomId()),
        commands: z._default(z.array(z.string().check(z.maxLength(32))).check(z.maxLength(16)), []),
        reason: p.text(200),
        ttl_secs: z.optional(z.int().check(z.gte(1), z.lte(7 * 24 * 3600))),
      },
      run: (a, { actor }) => {
        if (a.user_id !== undefined && !permits(actor, "admin")) {
          throw new OpsError(
            "FORBIDDEN",
            `${describeActor(actor)} may not veto a user's commands: it needs the admin permission`,
          );
        }
        try {
          const rule = vetoes.add({
            owner: ownerOf(actor),
            userId: a.user_id ?? null,
            roomId: a.room_id ?? null,
            commands: a.commands,
            reason: a.reason,
            until: a.ttl_secs === undefined ? null : now() + a.ttl_secs * 1000,
          }, now());
          return { id: rule.id, until: rule.until };
        } catch (error) {
          if (error instanceof RangeError) throw new OpsError("INVALID_ARGUMENT", error.message);
          throw error;
        }
      },
    }),
    serverOp({
      name: "command.unveto",
      summary: "remove a command veto (a plugin removes only its own)",
      permission: "room.manage",
      mutates: true,
      params: { id: z.int().check(z.gte(1)) },
      run: (a, { actor }) => {
        const removed = vetoes.remove(a.id, actor.kind === "plugin" ? actor.id : undefined);
        if (!removed) throw new OpsError("NOT_FOUND", `no veto ${a.id}`);
        return { removed: true };
      },
    }),
    serverOp({
      name: "command.vetoes",
      summary: "command vetoes in force (a plugin sees its own)",
      permission: "room.manage",
      run: (_a, { actor }) => ({
        vetoes: vetoes.list(now(), actor.kind === "plugin" ? actor.id : undefined).map((r) => ({
          id: r.id,
          owner: r.owner,
          user_id: r.userId,
          room_id: r.roomId,
          commands: r.commands,
          reason: r.reason,
          until: r.until,
        })),
      }),
    }),
  ];
}
