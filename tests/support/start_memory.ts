/**
 * The measurement behind BENCHMARKS.md "Start-up memory (issue 15)": RSS and
 * V8 heap of `main.ts start` once it has logged its ready summary. Run:
 *
 *   deno run -A tests/support/start_memory.ts [--database-url <url>] [--runs 3] [--settle 5] [-- <more server flags>]
 *
 * Each run starts the server as `deno task start` does (the task's permission
 * flags; the repository's `server_config.yml`, with the ports moved to free
 * ones and `data_dir` in a temporary directory shared by the runs, so the
 * first run creates the store and the later ones reopen it), waits for the
 * "is ready" line and `--settle` seconds, reads VmRSS from `/proc`, then asks
 * V8 through the inspector (`--inspect` on loopback) for a full garbage
 * collection and the heap's used and total size, and reads RSS again
 * (`--no-inspect`: RSS only, without the inspector's own cost). It prints one
 * JSON line per run and the medians of the warm runs (all but the first).
 *
 * @module
 */

import { freePort, mainArgs } from "./child_server.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

interface Sample {
  readonly run: number;
  readonly ready_ms: number;
  readonly rss_mib: number;
  readonly heap_used_mib: number;
  readonly heap_total_mib: number;
  readonly rss_after_gc_mib: number;
}

const mib = (bytes: number) => Math.round(bytes / 1024 / 1024 * 10) / 10;

function rssBytes(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) * 1024;
}

/** Calls the inspector: a full GC, then the heap's size. */
async function heapAfterGc(url: string): Promise<{ used: number; total: number }> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const waiting = new Map<number, (v: Record<string, unknown>) => void>();
  ws.onmessage = (e) => {
    const msg = JSON.parse(String(e.data));
    if (typeof msg.id === "number") waiting.get(msg.id)?.(msg.result ?? {});
  };
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const n = ++id;
      waiting.set(n, resolve);
      ws.send(JSON.stringify({ id: n, method }));
    });
  await call("HeapProfiler.collectGarbage");
  const usage = await call("Runtime.getHeapUsage");
  ws.close();
  return { used: Number(usage.usedSize), total: Number(usage.totalSize) };
}

/** Lines of a stream, handed to `each` as they come. */
async function lines(stream: ReadableStream<Uint8Array>, each: (line: string) => void): Promise<void> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop() ?? "";
    for (const l of parts) each(l);
  }
}

async function once(
  run: number,
  dataDir: string,
  extra: readonly string[],
  settleMs: number,
  inspect: boolean,
): Promise<Sample> {
  const inspectPort = freePort();
  const port = freePort(50, [inspectPort]);
  const [deno, ...rest] = mainArgs("start");
  const args = [
    deno!,
    ...(inspect ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
    ...rest,
    "--port",
    String(port),
    "--http-port",
    String(freePort(50, [inspectPort, port])),
    "--data-dir",
    dataDir,
    ...extra,
  ];
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stdin: "piped", stdout: "piped", stderr: "piped" })
    .spawn();
  const ready = Promise.withResolvers<number>();
  const inspector = Promise.withResolvers<string>();
  const seen: string[] = [];
  const watch = (l: string) => {
    seen.push(l);
    if (l.includes(" is ready (profile")) ready.resolve(performance.now() - started);
    const ws = /(ws:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]+)/.exec(l)?.[1];
    if (ws) inspector.resolve(ws);
  };
  const out = Promise.all([lines(child.stdout, watch), lines(child.stderr, watch)]);
  child.status.then((s) => ready.reject(new Error(`server exited (${s.code}):\n${seen.join("\n")}`)));
  try {
    const readyMs = await ready.promise;
    await new Promise((r) => setTimeout(r, settleMs));
    const rss = rssBytes(child.pid);
    const heap = inspect ? await heapAfterGc(await inspector.promise) : { used: NaN, total: NaN };
    const after = rssBytes(child.pid);
    return {
      run,
      ready_ms: Math.round(readyMs),
      rss_mib: mib(rss),
      heap_used_mib: mib(heap.used),
      heap_total_mib: mib(heap.total),
      rss_after_gc_mib: mib(after),
    };
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await out;
    await child.stdin.close().catch(() => {});
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2 * 10) / 10;
}

if (import.meta.main) {
  const args = [...Deno.args];
  const take = (flag: string) => {
    const i = args.indexOf(flag);
    if (i < 0) return null;
    const [, value] = args.splice(i, 2);
    return value ?? null;
  };
  const runs = Number(take("--runs") ?? 3);
  const settleMs = Number(take("--settle") ?? 5) * 1000;
  const url = take("--database-url");
  const noInspect = args.indexOf("--no-inspect");
  if (noInspect >= 0) args.splice(noInspect, 1);
  const dashes = args.indexOf("--");
  const extra = [...(url ? ["--database-url", url] : []), ...(dashes >= 0 ? args.slice(dashes + 1) : [])];
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-start-memory-" });
  const samples: Sample[] = [];
  try {
    for (let run = 1; run <= runs; run++) {
      const s = await once(run, dataDir, extra, settleMs, noInspect < 0);
      samples.push(s);
      console.log(JSON.stringify(s));
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
  const warm = samples.length > 1 ? samples.slice(1) : samples;
  const pick = (k: keyof Sample) => median(warm.map((s) => s[k]));
  console.log(JSON.stringify({
    store: url ? "postgres" : "embedded",
    warm_runs: warm.length,
    rss_mib: pick("rss_mib"),
    heap_used_mib: pick("heap_used_mib"),
    heap_total_mib: pick("heap_total_mib"),
    rss_after_gc_mib: pick("rss_after_gc_mib"),
    ready_ms: pick("ready_ms"),
  }));
}
