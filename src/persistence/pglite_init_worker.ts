/**
 * Worker script that creates a new PGlite data directory and exits. Creating
 * one runs `initdb`, whose WebAssembly memory would otherwise stay in the
 * server's RSS for the life of the process (~600 MB instead of ~270 MB on
 * the first start, BENCHMARKS.md "Persistence"); a terminated worker gives
 * it back. Message in: `{ dir, initialMemory, settings }`; out: `{ ok }` or
 * `{ error }`.
 *
 * @module
 */

import { PGlite } from "@electric-sql/pglite";

/** The request posted to the worker. */
export interface InitRequest {
  readonly dir: string;
  readonly initialMemory: number;
  readonly settings: string[];
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<InitRequest>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = async (e: MessageEvent<InitRequest>) => {
  try {
    const db = await PGlite.create(e.data.dir, {
      initialMemory: e.data.initialMemory,
      postgresqlconf: e.data.settings,
    });
    await db.close();
    scope.postMessage({ ok: true });
  } catch (error) {
    scope.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
