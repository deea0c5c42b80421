/**
 * Finding plugins and the order to load them in. A plugin is a folder with
 * `plugin.json` and `main.lua` or `init.lua` (`main.lua` wins when both
 * exist, as in the original). Folders are read in name order (the original
 * used the file system's order, so plugins loaded differently from machine
 * to machine); a later root replaces a plugin of the same id from an earlier
 * one (the operator's `plugins_dir` overrides the built-in plugins), and a
 * second plugin of one id in the same root is refused.
 *
 * Dependencies load first (spec 3 §2.3); ties in name order. A plugin whose
 * dependency is missing or in a cycle is refused with a message saying so,
 * and the others still load.
 *
 * @module
 */

import { join } from "node:path";
import { parseManifest, type PluginManifest } from "./manifest.ts";

/** A folder plugins are looked for in. */
export interface PluginRoot {
  readonly path: string;
  /** The built-in plugins shipped with the server. */
  readonly builtin: boolean;
}

/** A plugin found on disk. */
export interface FoundPlugin {
  readonly manifest: PluginManifest;
  readonly dir: string;
  /** The entry script (`main.lua` or `init.lua`). */
  readonly entry: string;
  readonly builtin: boolean;
}

/** A folder that could not be used as a plugin. */
export interface FoundProblem {
  readonly dir: string;
  /** The plugin's id when the manifest could be read. */
  readonly id: string | null;
  readonly message: string;
}

/** The result of a scan. */
export interface Discovery {
  readonly plugins: FoundPlugin[];
  readonly problems: FoundProblem[];
  /** Ids a later root took over from an earlier one. */
  readonly overridden: string[];
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** Scans the roots in order. A missing root is not a problem (no plugins there). */
export async function discoverPlugins(roots: readonly PluginRoot[]): Promise<Discovery> {
  const byId = new Map<string, FoundPlugin>();
  const problems: FoundProblem[] = [];
  const overridden: string[] = [];
  for (const root of roots) {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(root.path));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        problems.push({ dir: root.path, id: null, message: `cannot read the plugin folder: ${error}` });
      }
      continue;
    }
    const seen = new Set<string>();
    for (const entry of entries.filter((e) => e.isDirectory).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const dir = join(root.path, entry.name);
      let text: string;
      try {
        text = await Deno.readTextFile(join(dir, "plugin.json"));
      } catch {
        problems.push({ dir, id: null, message: "no plugin.json in this folder" });
        continue;
      }
      let manifest: PluginManifest;
      try {
        manifest = parseManifest(text);
      } catch (error) {
        problems.push({ dir, id: null, message: error instanceof Error ? error.message : String(error) });
        continue;
      }
      const main = join(dir, "main.lua");
      const entryFile = (await isFile(main)) ? main : join(dir, "init.lua");
      if (!(await isFile(entryFile))) {
        problems.push({ dir, id: manifest.id, message: "neither main.lua nor init.lua is in this folder" });
        continue;
      }
      if (seen.has(manifest.id)) {
        problems.push({
          dir,
          id: manifest.id,
          message: `another plugin in ${root.path} has the id "${manifest.id}" (${byId.get(manifest.id)?.dir})`,
        });
        continue;
      }
      seen.add(manifest.id);
      if (byId.has(manifest.id)) overridden.push(manifest.id);
      byId.set(manifest.id, { manifest, dir, entry: entryFile, builtin: root.builtin });
    }
  }
  const plugins = [...byId.values()].sort((a, b) => (a.manifest.id < b.manifest.id ? -1 : 1));
  return { plugins, problems, overridden };
}

/** The load order, and why the plugins left out were refused. */
export interface LoadOrder {
  readonly order: FoundPlugin[];
  /** Plugin id -> why it cannot be loaded (missing dependency, cycle). */
  readonly refused: Map<string, string>;
}

/** Orders plugins so that dependencies come first (depth first, ties by id). */
export function loadOrder(plugins: readonly FoundPlugin[]): LoadOrder {
  const byId = new Map(plugins.map((p) => [p.manifest.id, p]));
  const refused = new Map<string, string>();
  const order: FoundPlugin[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (id: string, path: string[]): boolean => {
    if (refused.has(id)) return false;
    if (state.get(id) === "done") return true;
    const plugin = byId.get(id)!;
    if (state.get(id) === "visiting") {
      const cycle = [...path.slice(path.indexOf(id)), id];
      for (const member of cycle) refused.set(member, `dependency cycle: ${cycle.join(" -> ")}`);
      return false;
    }
    state.set(id, "visiting");
    for (const dep of [...plugin.manifest.dependencies].sort()) {
      if (!byId.has(dep)) {
        refused.set(id, `missing dependency "${dep}" (no plugin with that id was found)`);
        break;
      }
      if (!visit(dep, [...path, id])) {
        if (!refused.has(id)) refused.set(id, `dependency "${dep}" cannot be loaded: ${refused.get(dep)}`);
        break;
      }
    }
    state.set(id, "done");
    if (refused.has(id)) return false;
    order.push(plugin);
    return true;
  };
  for (const p of plugins) visit(p.manifest.id, []);
  return { order, refused };
}
