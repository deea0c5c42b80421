/**
 * The compile child (spec 3 §4.6; platform facts: jco-transpile costs the
 * process 90-175 MB, so the server never loads it): checks one component
 * against the plugin world and transpiles it with jco's bindgen into a cache
 * entry -- the generated `plugin.js`, its core modules and `manifest.json` --
 * written to a temporary directory and renamed into place, so a reader
 * never sees half an entry. Started by the host with read access to the
 * component and the npm cache, write access to the cache root, and a clean
 * environment. Prints one JSON line: `{"ok": true}` or `{"ok": false,
 * "error": "..."}`.
 *
 * Usage: `deno run ... transpile_main.ts <component.wasm> <cache root> <key>`.
 *
 * @module
 */

import { $init, generate } from "@bytecodealliance/jco-transpile/component";
import { componentWit } from "@bytecodealliance/jco-transpile/wasm-tools";
import { checkWorld, TRANSPILER } from "./world_check.ts";

/** Largest component accepted (a StarlingMonkey plugin is about 12 MB). */
const MAX_COMPONENT_BYTES = 64 * 1024 * 1024;

function isComponent(bytes: Uint8Array): boolean {
  // Preamble: magic, then version 0x0d 0x00 and layer 0x01 0x00 for components (core modules: 0x01 0x00 0x00 0x00).
  return bytes.length >= 8 && bytes[0] === 0 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d &&
    bytes[6] === 1 && bytes[7] === 0;
}

async function compile(path: string, root: string, key: string): Promise<void> {
  const stat = await Deno.stat(path);
  if (stat.size > MAX_COMPONENT_BYTES) throw new Error(`it is ${stat.size} bytes; the limit is ${MAX_COMPONENT_BYTES}`);
  const bytes = await Deno.readFile(path);
  if (!isComponent(bytes)) {
    throw new Error(
      "it is not a WebAssembly component (a core module must be wrapped: wasm-tools component new, or jco new)",
    );
  }
  let world: string;
  try {
    world = await componentWit(bytes);
  } catch (error) {
    throw new Error(`it is not a valid component: ${error instanceof Error ? error.message : String(error)}`);
  }
  const check = checkWorld(world);
  if (!check.ok) throw new Error(check.problem);
  await $init;
  const generated = generate(bytes, {
    name: "plugin",
    instantiation: { tag: "async" },
    noTypescript: true,
    noNodejsCompat: true,
    // Errors of `result` exports are thrown as their payload (the child reports them as the error case).
    noComponentErrorWrapping: true,
    base64Cutoff: 0,
    map: [],
  });
  const temp = `${root}/${key}.tmp-${crypto.randomUUID()}`;
  await Deno.mkdir(temp, { recursive: true });
  try {
    for (const [name, content] of generated.files) {
      if (name.includes("/") || name.includes("..")) throw new Error(`unexpected generated file name "${name}"`);
      await Deno.writeFile(`${temp}/${name}`, content);
    }
    const manifest = {
      transpiler: TRANSPILER,
      js: "plugin.js",
      imports: generated.imports,
      world: check.imports,
      files: generated.files.map(([name]) => name),
    };
    await Deno.writeTextFile(`${temp}/manifest.json`, JSON.stringify(manifest, null, 2));
    try {
      await Deno.rename(temp, `${root}/${key}`);
    } catch (error) {
      // Another compile of the same content won the race: its entry is as good as ours.
      if (!(error instanceof Deno.errors.AlreadyExists) && !(await exists(`${root}/${key}/manifest.json`))) throw error;
      await Deno.remove(temp, { recursive: true });
    }
  } catch (error) {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const [path, root, key] = Deno.args;
  let result: { ok: true } | { ok: false; error: string };
  if (!path || !root || !key) result = { ok: false, error: "usage: transpile_main.ts <component> <cache root> <key>" };
  else {
    try {
      await compile(path, root, key);
      result = { ok: true };
    } catch (error) {
      result = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
  console.log(JSON.stringify(result));
}
