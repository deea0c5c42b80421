/**
 * The compile cache (spec 3 §4.6: transpile once per plugin file, never in
 * the server's process): entries under the cache root are keyed by the
 * SHA-256 of the component and the transpiler version, so a plugin file is
 * transpiled once and every later start reuses the entry -- a cached plugin
 * starts in a child process in about a tenth of a second. Compiles run one at
 * a time in a child (`transpile_main.ts`) with read access to the component
 * and the npm cache, write access to the cache root only, and a clean
 * environment. Entries unused for {@link PRUNE_AFTER_MS} are deleted.
 *
 * @module
 */

import type { Logger } from "../../util/log.ts";
import { TRANSPILER } from "./world_check.ts";
import { programFile } from "../../util/program_files.ts";

/** Entries untouched this long are removed by {@link CompileCache.prune}. */
export const PRUNE_AFTER_MS = 30 * 24 * 3600 * 1000;

/** A compile refused the component (its message says why) or failed. */
export class CompileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CompileError";
  }
}

/** A ready cache entry. */
export interface CacheEntry {
  /** Directory holding `manifest.json`, `plugin.js` and the core modules. */
  readonly dir: string;
  /** SHA-256 of the component (hex). */
  readonly sha256: string;
  /** True when this call compiled it; false when it was cached. */
  readonly compiled: boolean;
  /** Milliseconds the compile took (0 when cached). */
  readonly compileMs: number;
}

/** How to run the compile child. */
export interface CompilerOptions {
  /** The cache root. */
  readonly root: string;
  /** The deno executable (run by name: the server's permission is `--allow-run=deno`). */
  readonly deno: string;
  /** Environment of the child (PATH, HOME, DENO_DIR). */
  readonly env: Readonly<Record<string, string>>;
  /** Longest compile (ms) before the child is killed. */
  readonly timeoutMs: number;
  readonly log: Logger;
}

const SCRIPT = programFile("src/plugins/compile/transpile_main.ts");
const CONFIG = programFile("deno.json");

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compiles plugin components into the cache, one at a time. */
export class CompileCache {
  readonly #options: CompilerOptions;
  #queue: Promise<unknown> = Promise.resolve();
  #npmCache: string | null | undefined;

  constructor(options: CompilerOptions) {
    this.#options = options;
  }

  /** The cache root. */
  get root(): string {
    return this.#options.root;
  }

  /** The entry of the component at `path`, compiling it when it is not cached. Throws a {@link CompileError}. */
  async entryFor(path: string): Promise<CacheEntry> {
    const bytes = await Deno.readFile(path);
    const sha256 = await sha256Hex(bytes);
    const key = `${sha256.slice(0, 40)}-${TRANSPILER.replace(/[^a-z0-9.]+/gi, "-")}`;
    const dir = `${this.#options.root}/${key}`;
    if (await this.#usable(dir)) return { dir, sha256, compiled: false, compileMs: 0 };
    // One compile at a time: each child takes 100-200 MB while it runs.
    const run = this.#queue.then(() => this.#compile(path, key, dir, sha256));
    this.#queue = run.catch(() => {});
    return await run;
  }

  async #usable(dir: string): Promise<boolean> {
    try {
      const manifest = JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`)) as { transpiler?: unknown };
      if (manifest.transpiler !== TRANSPILER) return false;
      const now = new Date();
      await Deno.utime(`${dir}/manifest.json`, now, now).catch(() => {});
      return true;
    } catch {
      return false;
    }
  }

  async #compile(path: string, key: string, dir: string, sha256: string): Promise<CacheEntry> {
    if (await this.#usable(dir)) return { dir, sha256, compiled: false, compileMs: 0 };
    const { root, deno, env, timeoutMs, log } = this.#options;
    await Deno.mkdir(root, { recursive: true });
    const npm = await this.#npmCacheDir();
    const started = performance.now();
    const child = new Deno.Command(deno, {
      args: [
        "run",
        `--config=${CONFIG.pathname}`,
        "--no-lock",
        "--no-prompt",
        "--allow-env",
        `--allow-read=${[path, root, ...(npm ? [npm] : [])].join(",")}`,
        `--allow-write=${root}`,
        SCRIPT.pathname,
        path,
        root,
        key,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      clearEnv: true,
      env: { ...env, NO_COLOR: "1" },
    }).spawn();
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already exited.
      }
    }, timeoutMs);
    const output = await child.output();
    clearTimeout(timer);
    const ms = Math.round(performance.now() - started);
    const text = new TextDecoder().decode(output.stdout).trim().split("\n").at(-1) ?? "";
    let result: { ok?: boolean; error?: string } | null = null;
    try {
      result = JSON.parse(text);
    } catch {
      result = null;
    }
    if (result?.ok) {
      log.info("plugin compiled", { file: path, ms, sha256: sha256.slice(0, 12) });
      return { dir, sha256, compiled: true, compileMs: ms };
    }
    if (result?.error) throw new CompileError(result.error);
    const stderr = new TextDecoder().decode(output.stderr).trim().split("\n").slice(-3).join(" | ");
    throw new CompileError(
      output.signal === "SIGKILL" ? `compiling took longer than ${timeoutMs} ms` : `the compiler failed: ${stderr}`,
    );
  }

  /** Where Deno keeps npm packages (the compile child reads the transpiler from there). */
  async #npmCacheDir(): Promise<string | null> {
    if (this.#npmCache !== undefined) return this.#npmCache;
    try {
      const out = await new Deno.Command(this.#options.deno, {
        args: ["info", "--json"],
        stdout: "piped",
        stderr: "null",
        clearEnv: true,
        env: { ...this.#options.env },
      }).output();
      this.#npmCache = (JSON.parse(new TextDecoder().decode(out.stdout)) as { npmCache?: string }).npmCache ?? null;
    } catch {
      this.#npmCache = null;
    }
    return this.#npmCache;
  }

  /** Removes entries (and leftovers of interrupted compiles) untouched for {@link PRUNE_AFTER_MS}; returns how many. */
  async prune(now = Date.now()): Promise<number> {
    let removed = 0;
    try {
      for await (const item of Deno.readDir(this.#options.root)) {
        if (!item.isDirectory) continue;
        const dir = `${this.#options.root}/${item.name}`;
        const stat = await Deno.stat(`${dir}/manifest.json`).catch(() => Deno.stat(dir).catch(() => null));
        const at = stat?.mtime?.getTime() ?? now;
        if (now - at > PRUNE_AFTER_MS) {
          await Deno.remove(dir, { recursive: true }).catch(() => {});
          removed++;
        }
      }
    } catch {
      // No cache yet.
    }
    return removed;
  }
}
