/**
 * Generates `server_config.yml` from the schema: every key with its default and its one-line doc. The committed
 * file is checked against this output by `yml_test.ts`. Regenerate with
 * `deno run --allow-write=server_config.yml src/config/yml.ts` from the repository root.
 *
 * @module
 */

import { CONFIG_KEYS } from "./keys.ts";

/** Header of the generated file. */
export const YML_HEADER: readonly string[] = [
  "# Chorus server configuration: every key with its default value.",
  "# Precedence: defaults < this file < environment < command line. null means unset / off.",
  "# Environment: PM_<KEY> in upper case, nested keys joined by __ (PM_PORT=12346, PM_OPENUDS__ENABLED=true);",
  "#   lists and mappings as JSON (PM_MONITORS='[2,5]'). PM_DATABASE_URL_FILE names a file holding database_url;",
  "#   SERVICE_SECRET_KEY (or HSN_SECRET_KEY) sets service_secret_key.",
  "# Command line: --<key-in-kebab-case>, nested keys joined by a dot (--http-port 8080, --openuds.enabled,",
  "#   --no-chat-enabled, --wasm-runtime.max-memory-mb=128); --config <file> picks another file.",
  "# Check the result with `chorus check-config` (secrets are masked).",
  "# The repository copy is generated from src/config/schema.ts (deno run --allow-write=server_config.yml",
  "#   src/config/yml.ts); edit your deployment's copy freely.",
  "",
];

/** YAML for a default value; JSON is valid YAML flow syntax and quotes strings safely. */
function yamlValue(value: unknown): string {
  return JSON.stringify(value);
}

/** The full text of `server_config.yml` for the current schema, ending with a newline. */
export function generateConfigYaml(): string {
  const lines = [...YML_HEADER];
  for (const key of CONFIG_KEYS) {
    const indent = "  ".repeat(key.segments.length - 1);
    const name = key.segments[key.segments.length - 1] ?? "";
    if (key.kind === "section") {
      lines.push("", `# ${key.doc}`, `${name}:`);
      continue;
    }
    if (key.segments.length === 1 && lines.at(-1)?.startsWith(" ")) lines.push("");
    lines.push(
      `${indent}# ${key.doc}${key.secret ? " (secret)" : ""}`,
      `${indent}${name}: ${yamlValue(key.defaultValue)}`,
    );
  }
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  Deno.writeTextFileSync("server_config.yml", generateConfigYaml());
}
