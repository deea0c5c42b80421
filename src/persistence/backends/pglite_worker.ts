/**
 * The embedded database's own thread (a Deno module worker, started by
 * `pglite_worker_db.ts`): PGlite runs here, so its synchronous WebAssembly
 * work never blocks the server's event loop (BENCHMARKS.md "Persistence /
 * Telemetry": in the main thread it took 58 % of the process at 100 rooms
 * and stalled it for hundreds of ms).
 *
 * Protocol: requests `{ id, op, … }` (see {@link WorkerRequest}) are handled
 * one at a time in arrival order; each gets exactly one reply, `{ id, rows }`
 * or `{ id, error: { message, code? } }`, where `code` is the SQLSTATE of a
 * database error (kept so `sql_db.ts` can tell transient from permanent
 * failures). Transactions are plain `BEGIN` / `COMMIT` / `ROLLBACK`
 * statements; the main side makes sure nothing else interleaves.
 *
 * `init` creates a new data directory and closes it: it is sent to a worker
 * that is then terminated, so `initdb`'s memory leaves the process (~600 MB
 * instead of ~270 MB for life otherwise, BENCHMARKS.md "Persistence").
 *
 * @module
 */

import { PGlite } from "@electric-sql/pglite";
import { describeError } from "../error_text.ts";
import { syncTree } from "./fs_sync.ts";
import { pgliteOptions } from "./pglite_config.ts";

/** A request to the worker. */
export type WorkerRequest =
  | { readonly id: number; readonly op: "init"; readonly dir: string; readonly initialMemory: number }
  | { readonly id: number; readonly op: "open"; readonly dir: string | null; readonly initialMemory: number }
  | { readonly id: number; readonly op: "query"; readonly sql: string; readonly params: readonly unknown[] }
  | { readonly id: number; readonly op: "exec"; readonly sql: string }
  | { readonly id: number; readonly op: "checkpoint" }
  | { readonly id: number; readonly op: "close" };

/** A failure as sent back: the message and, for database errors, the SQLSTATE. */
export interface WireError {
  readonly message: string;
  readonly code?: string;
}

/** The reply to one request. */
export type WorkerReply =
  | { readonly id: number; readonly rows: Record<string, unknown>[] }
  | { readonly id: number; readonly error: WireError };

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply): void;
};

let db: PGlite | null = null;
let dir: string | null = null;
let chain: Promise<void> = Promise.resolve();

function opened(): PGlite {
  if (!db) throw new Error("Cannot query the embedded database: it is not open");
  return db;
}

async function run(r: WorkerRequest): Promise<Record<string, unknown>[]> {
  switch (r.op) {
    case "init": {
      const created = await PGlite.create(r.dir, pgliteOptions(r.initialMemory));
      await created.close();
      return [];
    }
    case "open":
      if (db) throw new Error("Cannot open the embedded database: it is open already");
      db = await PGlite.create(r.dir ?? "memory://", pgliteOptions(r.initialMemory));
      dir = r.dir;
      return [];
    case "query":
      return (await opened().query<Record<string, unknown>>(r.sql, r.params as unknown[])).rows;
    case "exec":
      await opened().exec(r.sql);
      return [];
    case "checkpoint":
      // PGlite runs with fsync off: write dirty pages out, then fsync the files (platform.md §4).
      await opened().exec("CHECKPOINT");
      if (dir) await syncTree(dir);
      return [];
    case "close":
      if (db && !db.closed) await db.close();
      db = null;
      return [];
  }
}

function wireError(error: unknown): WireError {
  // PGlite's file system throws plain objects (`{ name: "ErrnoError", errno }`): name them (error_text.ts).
  const message = describeError(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? { message, code } : { message };
}

scope.onmessage = (e: MessageEvent<WorkerRequest>) => {
  const r = e.data;
  chain = chain.then(async () => {
    try {
      scope.postMessage({ id: r.id, rows: await run(r) });
    } catch (error) {
      scope.postMessage({ id: r.id, error: wireError(error) });
    }
  });
};
