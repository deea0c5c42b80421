/**
 * Retention of the store's tables (spec 3 §2.3, §8): the policies in force
 * and the hourly pruning.
 *
 * @module
 */

export { RETENTION_TABLES, retentionPolicies, runRetention } from "./retention.ts";
export type { RetentionConfig, RetentionResult } from "./retention.ts";
