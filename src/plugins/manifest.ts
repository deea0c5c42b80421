/**
 * A plugin's files in `plugins_dir` (spec 3 §4.6, extended.md §2.18):
 * `<id>.wasm`, and optionally `<id>.capabilities.json` =
 * `{"capabilities": [...]}`. The sidecar lists the plugin's whole set of
 * capabilities; without one a plugin has the eight default-on ones. An
 * unknown capability refuses the plugin, naming it. The optional `events`
 * list narrows the event kinds delivered (default: all eleven).
 *
 * @module
 */

import { CAPABILITIES, type Capability, DEFAULT_CAPABILITIES } from "../ops/mod.ts";
import { PLUGIN_EVENT_KINDS, type PluginEventKind } from "./events.ts";

/** A plugin id: the file name without `.wasm`. */
export const PLUGIN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Largest sidecar read. */
const MAX_SIDECAR_BYTES = 64 * 1024;

/** What the sidecar grants. */
export interface PluginManifest {
  readonly capabilities: readonly Capability[];
  /** Event kinds delivered to `on-event`. */
  readonly events: readonly PluginEventKind[];
  /** True when a sidecar file was read. */
  readonly sidecar: boolean;
}

/** A sidecar that refuses the plugin. */
export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManifestError";
  }
}

/** The manifest of a plugin without a sidecar. */
export const DEFAULT_MANIFEST: PluginManifest = {
  capabilities: DEFAULT_CAPABILITIES,
  events: PLUGIN_EVENT_KINDS,
  sidecar: false,
};

/** Reads a sidecar's text; throws a {@link ManifestError} naming the problem. */
export function parseManifest(text: string): PluginManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ManifestError(`the capabilities file is not JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ManifestError('the capabilities file must be an object: {"capabilities": [...]}');
  }
  const { capabilities, events } = raw as { capabilities?: unknown; events?: unknown };
  if (!Array.isArray(capabilities) || capabilities.some((c) => typeof c !== "string")) {
    throw new ManifestError('the capabilities file needs "capabilities": a list of capability names');
  }
  const unknown = capabilities.find((c) => !(CAPABILITIES as readonly string[]).includes(c));
  if (unknown !== undefined) {
    throw new ManifestError(`unknown capability "${unknown}" (known: ${CAPABILITIES.join(", ")})`);
  }
  let kinds: readonly PluginEventKind[] = PLUGIN_EVENT_KINDS;
  if (events !== undefined) {
    if (!Array.isArray(events) || events.some((e) => typeof e !== "string")) {
      throw new ManifestError('"events" must be a list of event kinds');
    }
    const bad = events.find((e) => !(PLUGIN_EVENT_KINDS as readonly string[]).includes(e));
    if (bad !== undefined) {
      throw new ManifestError(`unknown event kind "${bad}" (known: ${PLUGIN_EVENT_KINDS.join(", ")})`);
    }
    kinds = [...new Set(events as PluginEventKind[])];
  }
  return { capabilities: [...new Set(capabilities as Capability[])], events: kinds, sidecar: true };
}

/** Reads `<dir>/<id>.capabilities.json`, or the defaults when there is none. */
export async function readManifest(dir: string, id: string): Promise<PluginManifest> {
  const path = `${dir}/${id}.capabilities.json`;
  let text: string;
  try {
    const file = await Deno.open(path);
    try {
      const stat = await file.stat();
      if (stat.size > MAX_SIDECAR_BYTES) {
        throw new ManifestError(`the capabilities file is over ${MAX_SIDECAR_BYTES} bytes`);
      }
      text = new TextDecoder().decode(await new Response(file.readable).arrayBuffer());
    } catch (error) {
      file.close();
      throw error;
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return DEFAULT_MANIFEST;
    throw error instanceof ManifestError
      ? error
      : new ManifestError(`cannot read ${path}: ${(error as Error).message}`);
  }
  return parseManifest(text);
}
