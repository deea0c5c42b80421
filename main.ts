/**
 * Chorus command-line entry point: `chorus [role] [options]`. The roles --
 * `start` (default), `dev`, `check-config`, `load`, ... -- live in
 * `src/roles/`, one module each with its own options and usage
 * (`chorus <role> --help`); this file only hands the arguments over.
 *
 * @module
 */

import { runChorus } from "./src/roles/mod.ts";

if (import.meta.main) Deno.exit(await runChorus(Deno.args));
