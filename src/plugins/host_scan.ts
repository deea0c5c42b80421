/**
 * Finding plugins: the `<id>.wasm` files of `plugins_dir` whose name is a
 * valid plugin id (spec 3 §3.3).
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import { PLUGIN_ID } from "./manifest.ts";

/** Ids of the plugin files in `dir`, sorted; other files are logged and ignored, a missing directory is none. */
export async function scanPlugins(dir: string, log: Logger): Promise<string[]> {
  const ids: string[] = [];
  try {
    for await (const item of Deno.readDir(dir)) {
      if (!item.isFile || !item.name.endsWith(".wasm")) continue;
      const id = item.name.slice(0, -5);
      if (PLUGIN_ID.test(id)) ids.push(id);
      else log.warn("plugin file ignored: its name is not a valid plugin id", { file: item.name });
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    log.info("no plugin directory", { dir });
  }
  return ids.sort();
}

/** {@link scanPlugins} synchronously and silently (at start, to know at once whether there are any). */
export function scanPluginsSync(dir: string): string[] {
  const ids: string[] = [];
  try {
    for (const item of Deno.readDirSync(dir)) {
      if (item.isFile && item.name.endsWith(".wasm") && PLUGIN_ID.test(item.name.slice(0, -5))) {
        ids.push(item.name.slice(0, -5));
      }
    }
  } catch {
    // No directory: no plugins (start() logs it).
  }
  return ids.sort();
}
