/**
 * A stand-in for `pglite_worker.ts` that dies (tests): it answers `open`,
 * then throws an uncaught error on the next request.
 *
 * @module
 */

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<{ id: number; op: string }>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (e) => {
  if (e.data.op === "open") scope.postMessage({ id: e.data.id, rows: [] });
  else throw new Error("wasm trap: unreachable");
};
