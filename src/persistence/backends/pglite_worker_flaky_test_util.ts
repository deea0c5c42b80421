/**
 * The real `pglite_worker.ts` that dies on request (tests): the statement
 * `SELECT 'crash'` throws an uncaught error, as a WebAssembly trap would;
 * every other request goes to the real handler.
 *
 * @module
 */

import "./pglite_worker.ts";

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<{ id: number; op: string; sql?: string }>) => void) | null;
};

const real = scope.onmessage!;
scope.onmessage = (e) => {
  if (e.data.op === "query" && e.data.sql === "SELECT 'crash'") throw new Error("wasm trap: unreachable");
  real(e);
};
