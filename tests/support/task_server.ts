/**
 * `main.ts start` as users run it: with exactly the permission flags of the
 * `start` task in `deno.json` (not `-A`), so a process test fails where a
 * user's server would (a permission the code needs but the task does not
 * grant).
 */
import { type ChildServer, watchOutput } from "./child_server.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** The Deno flags of `deno task <name>`: everything between `run` and `main.ts`. */
export function taskFlags(name = "start"): string[] {
  const deno = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)) as { tasks: Record<string, string> };
  const words = deno.tasks[name]!.trim().split(/\s+/);
  const flags = words.slice(words.indexOf("run") + 1, words.indexOf("main.ts"));
  if (flags.includes("-A") || flags.includes("--allow-all")) throw new Error(`the ${name} task grants everything`);
  return flags;
}

/** Options of {@link startAsTask}. */
export interface TaskServerOptions {
  readonly port: number;
  readonly httpPort: number;
  readonly dataDir: string;
  readonly upstream: string;
  readonly flags?: readonly string[];
}

/** Starts `deno run <start task flags> main.ts start …` on loopback with stdin at end of file. */
export function startAsTask(o: TaskServerOptions): ChildServer {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...taskFlags("start"),
      "main.ts",
      "start",
      "--port",
      String(o.port),
      "--http-port",
      String(o.httpPort),
      "--bind-address",
      "127.0.0.1",
      "--http-bind-address",
      "127.0.0.1",
      "--data-dir",
      o.dataDir,
      "--game-api-endpoint",
      o.upstream,
      "--log-level",
      "info",
      ...(o.flags ?? []),
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const { lines, waitFor, done } = watchOutput(child);
  const ready = Promise.race([
    waitFor(/game server listening/),
    done.then(() => {
      if (!lines.some((l) => /game server listening/.test(l))) {
        throw new Error(`server did not start:\n${lines.join("\n")}`);
      }
    }),
  ]);
  return { child, lines, ready, waitFor, done };
}
