/**
 * Measures how long a server takes to come back after SIGKILL on the same
 * data_dir, started both ways users start it (`deno run` with the start
 * task's flags, and `deno task start`): from the kill to "game server
 * listening" of the new process, and how much of it opening the embedded
 * database takes. Figures go to BENCHMARKS.md, never into tests.
 *
 *   deno run -A tests/support/restart_measure.ts [rounds]
 *
 * @module
 */
import { serveDevApi } from "../../src/upstream/mod.ts";
import { freePort, spawnServer } from "./child_server.ts";

const rounds = Number(Deno.args[0] ?? 5);
const upstream = serveDevApi();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
for (const viaTask of [false, true]) {
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-restart-" });
  const port = freePort();
  let s = spawnServer({ dataDir, port, upstream: upstream.url, viaTask, flags: ["--no-cli"] });
  await s.ready;
  const total: number[] = [];
  const database: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const pid = JSON.parse(await Deno.readTextFile(`${dataDir}/chorus.lock`)).pid;
    const started = performance.now();
    Deno.kill(pid, "SIGKILL");
    await s.child.status;
    await s.done;
    s = spawnServer({ dataDir, port, upstream: upstream.url, viaTask, flags: ["--no-cli"] });
    await s.ready;
    total.push(Math.round(performance.now() - started));
    const open = s.lines.map((l) => /embedded database open .* ms=(\d+)/.exec(l)).find((m) => m);
    database.push(Number(open?.[1] ?? NaN));
  }
  s.child.kill("SIGTERM");
  await s.child.status;
  await s.done;
  const how = viaTask ? "deno task start" : "deno run <start task flags>";
  console.log(
    `${how}: kill → listening ${total.join(", ")} ms (median ${median(total)}); ` +
      `of which opening the embedded database ${database.join(", ")} ms (median ${median(database)})`,
  );
  await Deno.remove(dataDir, { recursive: true });
}
await upstream.close();
