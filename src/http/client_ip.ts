/**
 * Client addresses. The main listener uses the socket's peer address and
 * ignores forwarding headers. The listener on `trusted_forwarded_http_port`
 * sits behind a reverse proxy and trusts `X-Forwarded-For` (spec 3 §2.3):
 * the proxy appends the address it saw, so the rightmost valid entry is the
 * one to believe (entries further left were written by the client and can
 * be forged).
 *
 * @module
 */

import { canonicalIp } from "../net/mod.ts";

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;

/** The address itself, without port or brackets, when `text` is an IP address; else null. */
export function parseIp(text: string): string | null {
  let s = text.trim();
  if (s.startsWith("[")) {
    const end = s.indexOf("]");
    if (end < 0) return null;
    s = s.slice(1, end);
  } else if (/^[\d.]+:\d+$/.test(s)) {
    s = s.slice(0, s.lastIndexOf(":"));
  }
  // One canonical form (RFC 5952), as for game connections: bans compare strings.
  if (IPV4.test(s)) return s;
  if (s.includes(":") && IPV6.test(s)) return canonicalIp(s);
  return null;
}

/** The client address from `X-Forwarded-For` (rightmost valid entry), or `fallback`. */
export function forwardedFor(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const parts = header.split(",");
  for (let i = parts.length - 1; i >= 0; i--) {
    const ip = parseIp(parts[i]!);
    if (ip) return ip;
  }
  return fallback;
}

/** True when a trusted proxy says the client used https. */
export function forwardedHttps(header: string | null): boolean {
  return header?.split(",").pop()?.trim().toLowerCase() === "https";
}
