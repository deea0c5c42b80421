/**
 * The upstream Phira API: a typed client with budgeted retries and ranged
 * downloads, and the deterministic development upstream used by tests and
 * `deno task dev`. See `README.md` for the dev data encodings and audio layouts.
 *
 * @module
 */

export * from "./errors.ts";
export * from "./schemas.ts";
export * from "./stats.ts";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.ts";
export { type FetchLike } from "./transport.ts";
export { type ContentRange, parseContentRange, type RangeResult } from "./range.ts";
export { type CallOptions, DEFAULT_GAME_API_ENDPOINT, Upstream, type UpstreamOptions } from "./client.ts";
export * from "./dev_accounts.ts";
export * from "./dev_audio.ts";
export * from "./dev_charts.ts";
export * from "./dev_chart_content.ts";
export * from "./dev_records.ts";
export * from "./dev_state.ts";
export * from "./dev_api.ts";
export * from "./dev_serve.ts";
