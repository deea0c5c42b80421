/**
 * `check-config` output: the effective configuration, one line per key with its source, secrets masked.
 * Pure, so the console can reuse it.
 *
 * @module
 */

import { LEAF_KEYS } from "./keys.ts";
import { maskValue } from "./mask.ts";
import { DEFAULT_SOURCE, sourceLabel } from "./sources.ts";
import type { LoadedConfig } from "./load.ts";
import type { Config } from "./schema.ts";

/** Reads a leaf value by its dotted path. */
export function valueAt(config: Config, path: string): unknown {
  let node: unknown = config;
  for (const segment of path.split(".")) node = (node as Record<string, unknown> | undefined)?.[segment];
  return node;
}

/**
 * Renders the effective configuration:
 * `  port                 = 12346  (env PM_PORT)`; secrets appear as `****` or `(unset)`, the database URL with
 * its password masked. Warnings, if any, follow under a `Warnings:` line; in Development, what profile Production
 * would refuse follows in full (the start-up log has only a one-line summary).
 */
export function renderEffectiveConfig(
  loaded: Pick<LoadedConfig, "config" | "sources" | "warnings" | "file" | "production">,
): string[] {
  const rows = LEAF_KEYS.map((key) => ({
    path: key.path,
    value: maskValue(key.path, valueAt(loaded.config, key.path)),
    source: sourceLabel(loaded.sources.get(key.path) ?? DEFAULT_SOURCE),
  }));
  const keyWidth = Math.max(...rows.map((r) => r.path.length));
  const valueWidth = Math.min(40, Math.max(...rows.map((r) => r.value.length)));
  const lines = [
    `Configuration file: ${loaded.file ?? "(none; defaults apply)"}`,
    `Profile: ${loaded.config.profile}`,
    ...rows.map((r) => `  ${r.path.padEnd(keyWidth)} = ${r.value.padEnd(valueWidth)}  (${r.source})`),
  ];
  if (loaded.warnings.length > 0) lines.push("Warnings:", ...loaded.warnings.map((w) => `  ! ${w}`));
  const production = loaded.production ?? [];
  if (production.length > 0) {
    lines.push("Profile Production would refuse:", ...production.map((w) => `  - ${w}`));
  }
  return lines;
}

/** Dotted paths of the leaf keys whose values differ between two configurations (for `config reload`). */
export function changedKeys(before: Config, after: Config): string[] {
  return LEAF_KEYS.map((k) => k.path).filter((path) =>
    JSON.stringify(valueAt(before, path)) !== JSON.stringify(valueAt(after, path))
  );
}
