/**
 * The client side of a comparison: the repository's load generator
 * (`src/load/cli.ts`) run as child processes against a server that is
 * already listening (`--port`, `--server-pid`, the shared `--upstream`), each
 * writing its JSON report to a file that is read back when it exits.
 *
 * @module
 */

import { join } from "node:path";
import { spawnProgram } from "../child.ts";
import { withFileLimit } from "./servers.ts";

const LOAD_CLI = new URL("../cli.ts", import.meta.url).pathname;

/** Where the generator points. */
export interface GeneratorTarget {
  readonly port: number;
  readonly pid: number;
  readonly upstream: string;
}

/** A contiguous share of rooms for one generator process. */
export interface RoomShare {
  readonly rooms: number;
  readonly idBase: number;
  readonly monitorBase: number;
}

/** First player id and first monitor id of the `rooms` scenario (its defaults). */
export const PLAYER_BASE = 100000;
export const MONITOR_BASE = 900000;

/** Splits `rooms` rooms of `players` players over `procs` processes with disjoint player and monitor ids. */
export function splitRooms(rooms: number, players: number, procs: number): RoomShare[] {
  const out: RoomShare[] = [];
  let first = 0;
  for (let k = 0; k < procs; k++) {
    const n = Math.floor(rooms / procs) + (k < rooms % procs ? 1 : 0);
    out.push({ rooms: n, idBase: PLAYER_BASE + first * players, monitorBase: MONITOR_BASE + first });
    first += n;
  }
  return out;
}

/** Monitor ids of `rooms` rooms (what the servers must allow). */
export function monitorIdsFor(rooms: number): number[] {
  return Array.from({ length: rooms }, (_, r) => MONITOR_BASE + r);
}

/**
 * Runs `load <scenario> <args>` against `t` in processes, one per argument
 * list; resolves with their reports. A process still running after `limitMs`
 * gets SIGTERM, on which the load generator stops and still writes its report
 * (a saturated server can keep a setup waiting for a long time).
 */
export async function runGenerators(
  scenario: "sessions" | "rooms",
  t: GeneratorTarget,
  argLists: readonly string[][],
  dir: string,
  limitMs = Infinity,
): Promise<unknown[]> {
  const runs = argLists.map(async (args, k) => {
    const json = join(dir, `${scenario}-${k}.json`);
    const cmd = withFileLimit(Deno.execPath(), [
      "run",
      "-A",
      LOAD_CLI,
      scenario,
      ...["--host", "127.0.0.1", "--port", String(t.port), "--server-pid", String(t.pid)],
      ...["--upstream", t.upstream, "--no-progress", "--json", json],
      ...args,
    ]);
    const child = spawnProgram(cmd.program, cmd.args, dir);
    const timer = Number.isFinite(limitMs) ? setTimeout(() => void child.stop(60_000), limitMs) : undefined;
    const status = await child.status;
    clearTimeout(timer);
    await child.stop();
    try {
      return JSON.parse(await Deno.readTextFile(json));
    } catch {
      throw new Error(`load ${scenario} exited with ${status.code} and no report:\n${child.tail.join("\n")}`);
    }
  });
  return await Promise.all(runs);
}
