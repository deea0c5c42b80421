/**
 * Builds the operations layer of a process: the registry with every
 * built-in operation over one game server. `src/app.ts` makes one and hands
 * it to every surface (console, OpenUDS, HTTP admin) and extension host;
 * tests make their own.
 *
 * @module
 */

import { type ServerOp, serverOp } from "./server_op.ts";
import type { OpsDeps } from "./deps.ts";
import { OpsError } from "./errors.ts";
import { historyOps } from "./ops_history.ts";
import { messageOps } from "./ops_messages.ts";
import { peopleOps } from "./ops_people.ts";
import { persistOps } from "./ops_persist.ts";
import { roomControlOps } from "./ops_room_control.ts";
import { roomQueryOps } from "./ops_room_query.ts";
import { serverOps } from "./ops_server.ts";
import { toolOps } from "./ops_tools.ts";
import { p } from "./params.ts";
import { Ops } from "./registry.ts";
import { OpsServices } from "./services.ts";

/** The operations layer of one server. */
export type ServerOps = Ops<OpsServices>;

/** Every built-in operation (the registry's own `ops.*` and `audit.list` aside). */
export function builtinOps(): ServerOp[] {
  return [
    ...roomControlOps(),
    ...roomQueryOps(),
    ...peopleOps(),
    ...messageOps(),
    ...serverOps(),
    ...persistOps(),
    ...historyOps(),
    ...toolOps(),
  ];
}

/** Operations about the registry itself: what exists, and the audit log. */
function registryOps(ops: ServerOps): ServerOp[] {
  return [
    serverOp({
      name: "ops.list",
      summary: "every operation: name, aliases, summary, permission, parameters",
      permission: "state.read",
      run: () => ({ ops: ops.list() }),
    }),
    serverOp({
      name: "ops.describe",
      summary: "one operation with the JSON Schema of its arguments",
      permission: "state.read",
      params: { name: p.text(128) },
      run: (a) => {
        const info = ops.list().find((o) => o.name === ops.get(a.name)?.name);
        if (!info) throw new OpsError("UNKNOWN_COMMAND", `unknown command: ${a.name}`);
        return { ...info, schema: ops.schemaOf(a.name) };
      },
    }),
    serverOp({
      name: "audit.list",
      summary: "recent calls of operations that change state, oldest first",
      permission: "operator",
      params: { limit: p.limit(100, 1000) },
      run: (a) => {
        const entries = ops.audit.recent(a.limit);
        return { entries, count: entries.length };
      },
    }),
  ];
}

/** The registry with every built-in operation. Call {@link closeOps} when the process stops. */
export function createOps(deps: OpsDeps): ServerOps {
  const core = deps.server.core;
  const ops = new Ops({
    context: new OpsServices(deps),
    now: () => core.ctx.clock.now(),
    log: core.ctx.log.child({ component: "ops" }),
  });
  for (const op of [...builtinOps(), ...registryOps(ops)]) ops.register(op);
  return ops;
}

/** Stops the operations' background bookkeeping (room visits). */
export function closeOps(ops: ServerOps): void {
  ops.context.close();
}
