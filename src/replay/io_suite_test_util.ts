/**
 * The shared behaviour of every {@link ReplayIo}: run by `io_test.ts` on
 * Deno's operations and on the file thread, so both write the same bytes and
 * fail with the same error classes.
 *
 * @module
 */

import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import type { ReplayIo } from "./io.ts";

/** Registers the suite for `name`; `make` gives a fresh io, `done` releases it. */
export function replayIoSuite(name: string, make: () => ReplayIo, done: (io: ReplayIo) => void = () => {}): void {
  const withIo = (title: string, body: (io: ReplayIo, dir: string) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const dir = await Deno.makeTempDir({ prefix: "replay-io-" });
      const io = make();
      try {
        await body(io, dir);
      } finally {
        done(io);
        await Deno.remove(dir, { recursive: true });
      }
    });

  withIo("creates folders and the file, appends, patches in place, syncs and closes", async (io, dir) => {
    const path = join(dir, "1", "2", "3.phirarec");
    const file = await io.create(path, new Uint8Array([1, 2, 3, 4]));
    await file.write(new Uint8Array([5, 6]));
    await file.writeAt(1, new Uint8Array([9, 9]));
    await file.write(new Uint8Array([7]));
    await file.sync();
    await file.close();
    deepEqual([...await Deno.readFile(path)], [1, 9, 9, 4, 5, 6, 7]);
  });

  withIo("never overwrites: a second create of the same path fails with AlreadyExists", async (io, dir) => {
    const path = join(dir, "a.phirarec");
    await (await io.create(path, new Uint8Array([1]))).close();
    await rejects(io.create(path, new Uint8Array([2])), Deno.errors.AlreadyExists);
    deepEqual([...await Deno.readFile(path)], [1]);
  });

  withIo("touch needs its folder (NotFound), mkdir makes it, remove ignores a missing file", async (io, dir) => {
    const marker = join(dir, "markers", "m");
    await rejects(io.touch(marker), Deno.errors.NotFound);
    await io.mkdir(join(dir, "markers"));
    await io.touch(marker);
    equal((await Deno.stat(marker)).size, 0);
    await io.remove(marker);
    await io.remove(marker);
    await rejects(Deno.stat(marker), Deno.errors.NotFound);
  });

  withIo("many files at once keep their own bytes", async (io, dir) => {
    const files = await Promise.all(
      Array.from({ length: 50 }, (_, i) => io.create(join(dir, `${i}.bin`), new Uint8Array([i]))),
    );
    await Promise.all(files.map((f, i) => f.write(new Uint8Array([i, i]))));
    await Promise.all(files.map((f) => f.sync()));
    await Promise.all(files.map((f) => f.close()));
    for (let i = 0; i < 50; i++) deepEqual([...await Deno.readFile(join(dir, `${i}.bin`))], [i, i, i]);
    ok(true);
  });
}
