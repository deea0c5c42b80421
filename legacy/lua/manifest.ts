/**
 * `plugin.json` (spec 3 §2.3 "Plugin manifest"): `id` (required), `name`,
 * `version`, `description`, `author`, `enabled` (default true),
 * `dependencies` (ids of plugins to load first; the original listed them
 * but never read them). Unknown keys are ignored; a wrong type is an error
 * naming the key. Read with a real JSON parser (the original's hand-written
 * one read `"enabled": true` as false when it was the last key).
 *
 * @module
 */

import * as z from "../../src/util/zod.ts";

/** A plugin id: letters, digits, `_`, `-`, `.`; 64 characters at most. */
export const PLUGIN_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const Manifest = z.object({
  id: z.string({ error: "id is missing (every plugin.json needs an id)" }).check(z.regex(PLUGIN_ID, {
    error: "id must be 1-64 letters, digits, _, - or . (starting with a letter or digit)",
  })),
  name: z.optional(z.string({ error: "name must be a string" }).check(z.maxLength(128))),
  version: z.optional(z.union([z.string().check(z.maxLength(64)), z.number()], { error: "version must be a string" })),
  description: z.optional(z.string({ error: "description must be a string" }).check(z.maxLength(1000))),
  author: z.optional(z.string({ error: "author must be a string" }).check(z.maxLength(256))),
  enabled: z.optional(z.boolean({ error: "enabled must be true or false" })),
  dependencies: z.optional(
    z.array(z.string().check(z.regex(PLUGIN_ID, { error: "dependencies must be plugin ids" })), {
      error: "dependencies must be a list of plugin ids",
    }).check(z.maxLength(64)),
  ),
});

/** A read manifest with defaults applied. */
export interface PluginManifest {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly author: string;
  readonly enabled: boolean;
  readonly dependencies: readonly string[];
}

/** A manifest that cannot be used. */
export class ManifestError extends Error {
  override readonly name = "ManifestError";
}

/** Parses `plugin.json` text; throws {@link ManifestError} with every problem. */
export function parseManifest(text: string): PluginManifest {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ManifestError(`plugin.json is not valid JSON: ${error instanceof Error ? error.message : error}`);
  }
  const parsed = Manifest.safeParse(data);
  if (!parsed.success) {
    throw new ManifestError(`plugin.json: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  }
  const m = parsed.data;
  return {
    id: m.id,
    name: m.name ?? m.id,
    version: m.version === undefined ? "0.0.0" : String(m.version),
    description: m.description ?? "",
    author: m.author ?? "",
    enabled: m.enabled ?? true,
    dependencies: [...new Set(m.dependencies ?? [])],
  };
}
