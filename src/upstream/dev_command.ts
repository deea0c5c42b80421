/**
 * The `dev` command's choices, kept out of `main.ts` so that they can be tested without a process: what to tell the
 * operator about the game API endpoint it replaces, and the guide to its test data (its `--dev-upstream-port` option
 * is parsed in `src/roles/dev_option.ts`, which every game-server role reads).
 *
 * @module
 */

import type { LoadedConfig } from "../config/mod.ts";
import { formatProblem } from "../config/mask.ts";
import { DEV_PASSWORD, DEV_WELL_KNOWN_USERS, devToken } from "./dev_accounts.ts";
import { AUDIO_FORMATS } from "./dev_audio.ts";
import { DEV_CHART_MAX_SECS, DEV_CHART_MIN_SECS, DEV_WELL_KNOWN_CHARTS, MAX_DEV_CHART_ID } from "./dev_charts.ts";
import { DEV_RECORD_STRIDE, devRecordId } from "./dev_records.ts";

/**
 * `loaded` as `dev` runs it: the game API endpoint is the development upstream at `url`. Applied to the configuration
 * at start and to every re-read (`config reload`, `check-config`), so the override is not mistaken for a change.
 */
export function withDevUpstream(loaded: LoadedConfig, url: string): LoadedConfig {
  return { ...loaded, config: { ...loaded.config, game_api_endpoint: url } };
}

/** What `dev` logs about the endpoint: always an info line, and a warning when the user's own value is overridden. */
export interface DevEndpointNotice {
  readonly info: string;
  readonly warning: string | null;
}

/**
 * The notice for serving `loaded` against the development upstream at `url`. `game_api_endpoint` set by file,
 * environment or flag is overridden by `dev`, which must not happen silently.
 */
export function devEndpointNotice(loaded: LoadedConfig, url: string): DevEndpointNotice {
  const info = `game API endpoint is the development upstream ${url} (dev command; test accounts and charts only)`;
  const source = loaded.sources.get("game_api_endpoint");
  if (source === undefined || source.kind === "default") return { info, warning: null };
  const warning = formatProblem(
    "game_api_endpoint",
    loaded.config.game_api_endpoint,
    source,
    `ignored by the dev command, which uses the development upstream ${url}; run \`start\` to use this endpoint`,
  );
  return { info, warning };
}

/**
 * What `dev` prints about its test data (issue 13: without it one had to read `dev_records.ts`): the upstream's
 * address, accounts and tokens, which chart ids exist, and how a record id maps to a player and a score.
 */
export function devGuide(url: string): string[] {
  const users = Object.entries(DEV_WELL_KNOWN_USERS).map(([id, name]) => `${name} (${id})`).join(", ");
  const charts = Object.entries(DEV_WELL_KNOWN_CHARTS).map(([id, name]) => `${id} "${name}"`).join(", ");
  const example = devRecordId(100, 1);
  return [
    `development upstream: ${url}`,
    `  accounts: every user id 1..2147483647 exists (named Player<id>), and ${users}`,
    `  tokens: Alice (100) ${devToken(100)}   Bob (200) ${devToken(200)}   zh-CN (300) ${devToken(300, "zh-CN")}`,
    `  other tokens: POST ${url}/login {"email": "user<id>@dev.local" (or "alice@dev.local"), ` +
    `"password": "${DEV_PASSWORD}"}`,
    `  charts: every id 1..${MAX_DEV_CHART_ID} exists ("Chart <id>", ${DEV_CHART_MIN_SECS}-${DEV_CHART_MAX_SECS} s of ` +
    `${AUDIO_FORMATS.join("/")} audio); named: ${charts}`,
    `  records: id = player × ${DEV_RECORD_STRIDE} + n is play n (1..999) of that player, e.g. ${example} = Alice's ` +
    `play 1; n = 1 all perfect (score 1000000, full combo), 2 full combo with a few goods, 3 a rough play with ` +
    `misses, others derived from the id; a player may submit only their own records`,
  ];
}
