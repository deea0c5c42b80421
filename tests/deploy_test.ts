/**
 * The deployment kit (`deploy/`): the systemd units pass `systemd-analyze
 * verify`, the source unit runs the bundle with exactly the permission flags
 * of `deno task start`, the units keep the stop and restart contract of
 * the server (SIGTERM, exit 75 after a self-update), the nginx sample
 * passes `nginx -t`, and the container image runs as a non-root user with
 * the data directory as a volume. Tools that are absent are reported as
 * skipped with the reason.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { compileArgs, EMBEDDED, startRuntimeFlags } from "../deploy/compile.ts";
import { EXIT_RESTART } from "../src/update/mod.ts";
import { SOURCE_ENTRIES } from "../deploy/bundle.ts";
import { denoTasks, runTask, taskCommand, taskDependencies } from "../src/util/deno_tasks.ts";
import { BUNDLED_WORKERS } from "../src/util/program_files.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const UNITS = ["chorus.service", "chorus-deno.service", "chorus@.service"];
const read = (name: string) => Deno.readTextFileSync(`${ROOT}deploy/${name}`);

function which(tool: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").concat(["/usr/sbin", "/usr/bin"])) {
    try {
      const path = `${dir}/${tool}`;
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not here
    }
  }
  return null;
}

/** `Key=value` lines of a unit's section. */
function directives(unit: string, section: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current = "";
  for (const line of unit.split("\n")) {
    const header = /^\[(.+)\]$/.exec(line.trim());
    if (header) current = header[1]!;
    else if (current === section && /^[A-Za-z]+=/.test(line)) {
      const i = line.indexOf("=");
      out.set(line.slice(0, i), [...(out.get(line.slice(0, i)) ?? []), line.slice(i + 1)]);
    }
  }
  return out;
}

const analyzer = which("systemd-analyze");
Deno.test({
  name: analyzer ? "systemd units pass systemd-analyze verify" : "systemd units (skipped: systemd-analyze not found)",
  ignore: !analyzer,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "chorus-units-" });
    try {
      // The analyzer checks that ExecStart's program exists: point it at stand-ins in the temporary directory.
      const bin = `${dir}/chorus`;
      await Deno.writeTextFile(bin, "#!/bin/sh\n", { mode: 0o755 });
      for (const unit of UNITS) {
        const text = read(unit).replaceAll("/opt/chorus/chorus", bin).replaceAll("/usr/bin/deno", Deno.execPath());
        await Deno.writeTextFile(`${dir}/${unit}`, text);
        const target = unit.includes("@") ? unit.replace("@", "@proxy") : unit;
        const out = await new Deno.Command(analyzer!, {
          args: ["verify", "--man=no", `${dir}/${target}`],
          stdout: "piped",
          stderr: "piped",
        }).output();
        const said = (new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr)).trim();
        equal(out.code, 0, `${unit}: ${said}`);
        equal(said, "", `${unit}: the analyzer has nothing to say`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("the units keep the server's stop and restart contract", () => {
  for (const unit of UNITS) {
    const service = directives(read(unit), "Service");
    deepEqual(service.get("KillSignal"), ["SIGTERM"], unit);
    deepEqual(service.get("Restart"), ["on-failure"], unit);
    deepEqual(service.get("StandardInput"), ["null"], `${unit}: unattended`);
    deepEqual(service.get("NoNewPrivileges"), ["yes"], unit);
    equal(service.get("MemoryDenyWriteExecute"), undefined, `${unit}: V8's JIT needs W+X memory`);
    ok(Number(service.get("TimeoutStopSec")?.[0]) > 15, `${unit}: longer than graceful_shutdown_timeout`);
  }
  const binary = directives(read("chorus.service"), "Service");
  deepEqual(binary.get("RestartForceExitStatus"), [String(EXIT_RESTART)], "restart after a self-update");
  ok(binary.get("ReadWritePaths")?.[0]?.includes("/opt/chorus"), "self-update may replace the binary");
});

/** Permission and runtime memory flags (issue 15: the memory settings go wherever the server runs). */
const runFlag = (f: string) => f.startsWith("--allow") || f.startsWith("--v8-flags=") || f === "--no-code-cache";

Deno.test("the source unit runs the bundle with the permission and memory flags of deno task start", () => {
  const task = runTask(denoTasks(Deno.readTextFileSync(`${ROOT}deno.json`)), "start");
  equal(task.script, "build/start.js");
  const service = directives(read("chorus-deno.service"), "Service");
  const exec = service.get("ExecStart")![0]!.split(/\s+/);
  const at = exec.indexOf("/var/cache/chorus/build/start.js");
  ok(at > 0, "the launcher of the bundle the unit builds");
  deepEqual(exec.slice(2, at).filter(runFlag).toSorted(), task.flags.toSorted());
  deepEqual(exec.slice(at + 1, at + 3), ["start", "--no-cli"]);
  // The checkout is read-only to the service (ProtectSystem=strict): the bundle goes to its cache directory.
  deepEqual(service.get("ExecStartPre"), ["/usr/bin/deno task cache --frozen --out /var/cache/chorus/build"]);
  deepEqual(service.get("CacheDirectory"), ["chorus"]);
});

Deno.test("the start task keeps V8's young generation small, and the binary is built with the same flags", () => {
  const denoJson = Deno.readTextFileSync(`${ROOT}deno.json`);
  const flags = startRuntimeFlags(denoJson);
  // Issue 15: a 2 MiB semi-space keeps an idle server's heap near what it uses, a 1.5 growth factor keeps a playing
  // one's flat; optimising compiles on the main thread, whose allocator reuses their memory; no code cache held open.
  deepEqual(flags, [
    "--v8-flags=--expose-gc,--max-semi-space-size=2,--heap-growing-percent=50,--no-concurrent-recompilation",
    "--no-code-cache",
  ]);
  const args = compileArgs({ denoDir: "/nonexistent", npmCache: "/nonexistent" });
  for (const flag of flags) ok(args.indexOf(flag) > 0 && args.indexOf(flag) < args.indexOf("main.ts"), flag);
  deepEqual(startRuntimeFlags(JSON.stringify({ tasks: { start: "deno run --allow-net main.ts start" } })), []);
});

Deno.test("the container image runs unprivileged with the data directory as a volume", () => {
  const file = read("Containerfile");
  ok(/^USER deno$/m.test(file), "non-root user");
  ok(/^VOLUME \["\/data"\]$/m.test(file), "data volume");
  ok(/PM_DATA_DIR=\/data/.test(file));
  const entry = JSON.parse(/^ENTRYPOINT (.+)$/m.exec(file)![1]!) as string[];
  const task = runTask(denoTasks(Deno.readTextFileSync(`${ROOT}deno.json`)), "start");
  deepEqual(entry.filter(runFlag).toSorted(), task.flags.toSorted());
  equal(entry.at(-1), task.script, "the bundle, as deno task start runs it");
  // Every file the server loads at run time, and the build's own scripts, are copied into the image.
  const buildScripts = [...Deno.readDirSync(`${ROOT}deploy`)].map((e) => `deploy/${e.name}`)
    .filter((p) => /^deploy\/bundle\w*\.ts$/.test(p) && !p.endsWith("_test.ts"));
  for (const path of ["src/", "static/", "main.ts", "deno.lock", ...buildScripts]) {
    ok(file.includes(path), path);
  }
});

/** The worker scripts of src/ (`new Worker(workerScript("src/x.ts"), ...)`), as paths from the repository root. */
function workerScripts(dir = `${ROOT}src`): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...workerScripts(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
      const text = Deno.readTextFileSync(path);
      ok(!/new Worker\(new URL/.test(text), `${path}: a worker's script is found through workerScript()`);
      for (const m of text.matchAll(/new Worker\(workerScript\("([^"]+)"\)/g)) found.push(m[1]!);
    }
  }
  return found.toSorted();
}

Deno.test("deno task cache builds the bundle and parses every script a role runs; the roles and the tests run it first", () => {
  const tasks = denoTasks(Deno.readTextFileSync(`${ROOT}deno.json`));
  const words = taskCommand(tasks, "cache").split(/\s+/);
  deepEqual([words[0], words[1], words.at(-1)], ["deno", "run", "deploy/bundle.ts"]);
  const workers = workerScripts();
  ok(workers.length >= 4, workers.join());
  for (const file of SOURCE_ENTRIES) ok(Deno.statSync(`${ROOT}${file}`).isFile, `${file} exists`);
  for (const file of ["main.ts", ...workers, "src/plugins/child/runner.ts"]) {
    ok((SOURCE_ENTRIES as readonly string[]).includes(file), file);
  }
  for (const file of BUNDLED_WORKERS) ok(workers.includes(file), file);
  // The binary embeds the same worker scripts (deno compile cannot see them either).
  deepEqual(EMBEDDED.filter((f) => f.endsWith(".ts")).toSorted(), workers);
  // A server process that parsed its own module graph keeps the parsers' memory, ~50 MiB, as long as it runs.
  for (const role of ["start", "dev", "legacy", "proxy", "accounts", "companions", "test"]) {
    deepEqual(taskDependencies(tasks, role), ["cache"], role);
  }
  ok(/^RUN deno task cache --frozen/m.test(read("Containerfile")), "the image builds and parses at build time");
});

const nginx = which("nginx");
Deno.test({
  name: nginx ? "the nginx sample passes nginx -t" : "the nginx sample (skipped: nginx not found)",
  ignore: !nginx,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "chorus-nginx-" });
    try {
      // A self-signed certificate stands in for Let's Encrypt's.
      const cert = await new Deno.Command("openssl", {
        args: ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test"]
          .concat(["-keyout", `${dir}/key.pem`, "-out", `${dir}/cert.pem`]),
        stdout: "null",
        stderr: "null",
      }).output();
      ok(cert.success, "openssl made a certificate");
      const site = read("nginx.conf")
        .replace(/\/etc\/letsencrypt\/live\/[a-z.]+\/fullchain\.pem/g, `${dir}/cert.pem`)
        .replace(/\/etc\/letsencrypt\/live\/[a-z.]+\/privkey\.pem/g, `${dir}/key.pem`);
      await Deno.writeTextFile(`${dir}/chorus.conf`, site);
      const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `${t}_temp_path ${dir};`).join(" ");
      await Deno.writeTextFile(
        `${dir}/nginx.conf`,
        `pid ${dir}/nginx.pid; error_log ${dir}/error.log; events {} ` +
          `http { access_log off; ${temp} include ${dir}/chorus.conf; }\n`,
      );
      const out = await new Deno.Command(nginx!, {
        args: ["-t", "-q", "-c", `${dir}/nginx.conf`, "-p", dir],
        stdout: "piped",
        stderr: "piped",
      }).output();
      equal(out.code, 0, new TextDecoder().decode(out.stderr));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("the reverse-proxy samples pass streams through unbuffered with long timeouts", () => {
  const nginxConf = read("nginx.conf");
  const servers = nginxConf.split(/\nserver \{/).slice(2); // the three TLS servers
  equal(servers.length, 3);
  for (const server of servers) {
    for (const must of ["proxy_buffering off;", "proxy_read_timeout 1h;", "proxy_set_header Upgrade $http_upgrade;"]) {
      ok(server.includes(must), `${must} in ${server.slice(0, 80)}`);
    }
  }
  ok(/location = \/metrics \{[^}]*deny all;/.test(nginxConf), "nginx keeps /metrics private");
  const caddy = read("Caddyfile");
  equal(caddy.match(/flush_interval -1/g)?.length, 3, "Caddy flushes every stream at once");
  ok(caddy.includes("respond @metrics 403"), "Caddy keeps /metrics private");
});
