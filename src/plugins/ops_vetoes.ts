/**
 * `command.veto`, `command.unveto`, `command.vetoes`: the declarative
 * command vetoes of plugins (`vetoes.ts`) as operations. A rule about a
 * room needs `room.manage`; a rule about a user needs `admin` too. A plugin
 * sees and removes only its own rules.
 *
 * @module
 */

import { z } from "zod";
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
        user_id: p.userId().optional(),
        room_id: p.roomId().optional(),
        commands: z.array(z.string().max(32)).max(16).default([]),
        reason: p.text(200),
        ttl_secs: z.number().int().min(1).max(7 * 24 * 3600).optional(),
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
      params: { id: z.number().int().min(1) },
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
