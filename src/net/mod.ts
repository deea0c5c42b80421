/**
 * Connection-level networking helpers: CIDR matching, PROXY protocol, rate limits, key derivation.
 *
 * @module
 */

export * from "./cidr.ts";
export * from "./proxy_protocol.ts";
export * from "./proxy_accept.ts";
export * from "./rate_limit.ts";
export * from "./address_group.ts";
export * from "./monitor_key.ts";
