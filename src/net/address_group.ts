/**
 * The client an address stands for, for per-address limits (issue 14): an
 * IPv4 address is one client, an IPv6 host picks any address of its /64
 * (RFC 4291 §2.5.1 interface identifiers, RFC 8981 temporary addresses), so
 * every address of one /64 is one client. Without this a single host walks
 * through 2^64 addresses past every per-address limit.
 *
 * @module
 */

import { formatIp, parseIp } from "./cidr.ts";

/** True for `::ffff:0:0/96` (IPv4-mapped): such an address is an IPv4 client. */
function isV4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/**
 * The key per-address limits count under: the canonical IPv4 address, or
 * the IPv6 address's /64 written `prefix::/64`. Text that is not an address
 * (a test's virtual peer) is its own key.
 */
export function addressGroup(ip: string): string {
  const bytes = parseIp(ip);
  if (!bytes) return ip;
  if (isV4Mapped(bytes)) return formatIp(bytes);
  const prefix = new Uint8Array(16);
  prefix.set(bytes.subarray(0, 8));
  return `${formatIp(prefix)}/64`;
}

/**
 * True for 127.0.0.0/8 and ::1 in canonical form: this host. Per-address
 * shares do not apply to it -- a local forwarder without the PROXY protocol
 * makes every client look like loopback, and a share would throttle them all
 * together; the global bounds still do.
 */
export function isLoopbackAddress(ip: string): boolean {
  return ip === "::1" || ip.startsWith("127.");
}
