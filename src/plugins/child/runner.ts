/**
 * The plugin child process (spec 3 §4.6 isolation): one per plugin, started
 * by the host with the fewest permissions (read access to the plugin's
 * compiled cache entry only, no network, no writes, no environment but
 * `JCO_DEBUG`), a JS heap limit and a stack size. It instantiates the
 * transpiled component with every memory capped, then serves calls from
 * stdin one at a time. A host function the guest calls is forwarded to the
 * host as a frame on stdout and the child blocks in `readSync` until the
 * answer arrives, so host functions are synchronous for the guest and no
 * JSPI is needed. The host kills this process when a call overruns its
 * time; nothing here has to cooperate for that.
 *
 * Usage: `deno run ... runner.ts <entry dir> <max memory pages>`.
 *
 * @module
 */

import { limitMemory } from "./memory_limit.ts";
import { type HostToChild, readFrameSync, writeFrameSync } from "./wire.ts";

const EXPORTS = new Set(["init", "getInfo", "cleanup", "onEvent", "onApi"]);

function send(message: unknown): void {
  writeFrameSync(Deno.stdout, message);
}

function receive(): HostToChild {
  const message = readFrameSync(Deno.stdin) as HostToChild | null;
  // The host closed the pipe: it is stopping this plugin.
  if (message === null) Deno.exit(0);
  return message;
}

/** Forwards a host function call and waits for its answer. */
function hostCall(iface: string, fn: string, args: unknown[]): unknown {
  send({ t: "host", i: iface, f: fn, a: args });
  const reply = receive();
  if (reply.t !== "reply") throw new Error(`protocol: expected a reply, got ${reply.t}`);
  // jco turns a thrown non-Error into the `err` case of a `result` import.
  if (reply.e !== undefined) throw reply.e;
  return reply.v;
}

/** Functions jco took from each import object at instantiation: the host checks it provides them all. */
const used: Record<string, string[]> = {};

/** An import object whose every function forwards to the host. */
function forwarder(iface: string): Record<string, unknown> {
  const names: string[] = used[iface] = [];
  return new Proxy({}, {
    get: (_target, name) => {
      if (typeof name !== "string") return undefined;
      if (!names.includes(name)) names.push(name);
      return (...args: unknown[]) => hostCall(iface, name, args);
    },
    has: () => true,
  });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

async function load(dir: string, maxPages: number): Promise<Record<string, (...args: unknown[]) => unknown>> {
  const manifest = JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`)) as { js: string; imports: string[] };
  const mod = await import(new URL(`file://${dir}/${manifest.js}`).href);
  const imports = Object.fromEntries(manifest.imports.map((key) => [key, forwarder(key)]));
  const compile = (name: string) =>
    WebAssembly.compile(limitMemory(Deno.readFileSync(`${dir}/${name}`), maxPages) as BufferSource);
  return await mod.instantiate(compile, imports);
}

function serve(instance: Record<string, (...args: unknown[]) => unknown>): never {
  for (;;) {
    const message = receive();
    if (message.t !== "call" || !EXPORTS.has(message.fn)) {
      send({ t: "fatal", message: `protocol: unexpected ${message.t}` });
      Deno.exit(2);
    }
    let reply: unknown;
    try {
      reply = { t: "ret", ok: true, v: instance[message.fn]!(...message.args) ?? null };
    } catch (error) {
      // The `err` case of a `result` export is thrown as its payload (a string); a trap throws an Error.
      reply = error instanceof Error
        ? { t: "ret", ok: false, kind: "trap", message: errorMessage(error) }
        : { t: "ret", ok: false, kind: "error", message: String(error) };
    }
    send(reply);
  }
}

const [dir, pages] = Deno.args;
if (!dir || !pages) {
  console.error("usage: runner.ts <entry dir> <max memory pages>");
  Deno.exit(2);
}
let instance: Record<string, (...args: unknown[]) => unknown>;
try {
  instance = await load(dir, Number(pages));
} catch (error) {
  send({ t: "fatal", message: errorMessage(error) });
  Deno.exit(1);
}
send({ t: "ready", used });
serve(instance);
