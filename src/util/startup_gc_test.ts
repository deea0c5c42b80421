import { deepEqual, equal } from "node:assert/strict";
import { collectStartupGarbage, exposedGc, type GcFunction } from "./startup_gc.ts";

Deno.test("without --expose-gc there is no gc and nothing runs", () => {
  equal(exposedGc({}), null);
  equal(exposedGc({ gc: "not a function" }), null);
  equal(collectStartupGarbage(null), null);
});

Deno.test("with gc: one synchronous last-resort major collection, measured", () => {
  const calls: unknown[] = [];
  const gc: GcFunction = (options) => void calls.push(options);
  equal(exposedGc({ gc }), gc);
  const heap = [30_000_000, 18_000_000];
  const times = [100, 112.5];
  const done = collectStartupGarbage(gc, () => heap.shift()!, () => times.shift()!);
  deepEqual(calls, [{ type: "major", execution: "sync", flavor: "last-resort" }]);
  deepEqual(done, { heapBefore: 30_000_000, heapAfter: 18_000_000, ms: 12.5 });
});

Deno.test("V8's own gc accepts these options (the flag as the start task passes it)", async () => {
  const code =
    'const gc = globalThis.gc; gc({ type: "major", execution: "sync", flavor: "last-resort" }); console.log("ok");';
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", code],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(new TextDecoder().decode(out.stdout).trim(), "ok", new TextDecoder().decode(out.stderr));
});
