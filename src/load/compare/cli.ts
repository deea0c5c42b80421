/**
 * `deno task bench-servers`: Chorus and tphira-mp side by side (issue 15),
 * one server at a time, each phase on a fresh server process, the same load
 * generator in its own processes and the same development upstream; prints
 * the tables (Markdown) and optionally writes every figure as JSON.
 *
 * @module
 */

import { join } from "node:path";
import { loadAverage, machineInfo } from "../proc.ts";
import { type CompareOptions, compareUsage, parseCompareArgs, UsageError } from "./args.ts";
import { freshDatabase } from "./database.ts";
import { idlePhase, type PhaseEnv, relayPhase } from "./phases.ts";
import { SERVER_LABELS, type ServerPaths } from "./servers.ts";
import { renderComparison, type ServerResult } from "./table.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

function say(line: string): void {
  console.error(line);
}

async function checkTphira(dir: string): Promise<void> {
  for (const p of ["dist/server/main.js", "locales"]) {
    try {
      await Deno.stat(join(dir, p));
    } catch {
      throw new UsageError(
        `Cannot run tphira-mp from ${dir}: ${p} is missing (run npm install && npm run build there)`,
      );
    }
  }
}

/** Runs every phase of every server; a failed phase is recorded and the run goes on. */
export async function compare(o: CompareOptions, env: PhaseEnv): Promise<ServerResult[]> {
  const results: ServerResult[] = [];
  for (const kind of o.servers) {
    const r: ServerResult = { kind, label: SERVER_LABELS[kind], failures: [] };
    results.push(r);
    for (const phase of o.phases) {
      say(`${new Date().toISOString()} ${kind} ${phase} (load average ${loadAverage()?.join(" ") ?? "?"})`);
      try {
        let f;
        if (phase === "idle") f = r.idle = await idlePhase(kind, o, env);
        else {
          const run = phase === "big"
            ? await relayPhase(kind, o.bigRooms, o.bigDuration, o.bigClientProcs, o, env)
            : await relayPhase(kind, o.rooms, o.relayDuration, o.clientProcs, o, env);
          f = r[phase] = run.figures;
          r.samples = { ...r.samples, [phase]: run.samples };
        }
        if (f.errors) say(`  ${kind} ${phase}: ${f.errors} errors, first: ${f.errorSamples.slice(0, 3).join(" | ")}`);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        say(`  ${kind} ${phase} failed: ${why}`);
        r.failures.push(`${phase}: ${why.split("\n")[0]}`);
      }
    }
  }
  return results;
}

/** Runs the comparison with command-line `args`; resolves with the exit code. */
export async function runCompare(args: string[]): Promise<number> {
  let o: CompareOptions | null;
  try {
    o = parseCompareArgs(args);
    if (o?.tphiraDir && o.servers.includes("tphira")) await checkTphira(o.tphiraDir);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    say(`${error.message}\n\n${compareUsage()}`);
    return 2;
  }
  if (!o) {
    console.log(compareUsage());
    return 0;
  }
  const options = o;
  const paths: ServerPaths = {
    denoJson: join(ROOT, "deno.json"),
    tphiraDir: options.tphiraDir,
    node: options.node,
  };
  const env: PhaseEnv = {
    paths,
    database: (kind) =>
      kind === "chorus-pg" && options.databaseUrl ? freshDatabase(options.databaseUrl) : Promise.resolve(null),
    say,
  };
  const startedAt = new Date();
  const results = await compare(options, env);
  const m = machineInfo();
  console.log(renderComparison(results, options));
  console.log(`\nmachine: ${m.cpuModel ?? "?"} × ${m.cpus}, ${m.memTotalMb ?? "?"} MB, ${m.os}, Deno ${m.deno}`);
  if (options.json) {
    const report = {
      format: "chorus-bench-servers/1",
      startedAt: startedAt.toISOString(),
      machine: m,
      options,
      results,
    };
    await Deno.writeTextFile(options.json, JSON.stringify(report, null, 2) + "\n");
    say(`JSON written to ${options.json}`);
  }
  return results.some((r) => r.failures.length) ? 1 : 0;
}

if (import.meta.main) Deno.exit(await runCompare(Deno.args));
