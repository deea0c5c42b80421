/**
 * Which network addresses a plugin may reach (spec 3 §4.6: outbound HTTP
 * is protected against requests to internal addresses). Refused unless
 * `wasm_runtime.allow_private_network`: loopback, private (RFC 1918, ULA,
 * carrier-grade NAT), link-local (which holds the cloud metadata address
 * 169.254.169.254), multicast, broadcast, unspecified and reserved ranges,
 * IPv4 reached through IPv6 (mapped, NAT64, 6to4) when the IPv4 address is
 * refused, and the metadata host names. Checked on every address a name
 * resolves to and again on the address actually connected to.
 *
 * @module
 */

import { CidrSet, parseIp } from "../net/mod.ts";

/** Ranges no plugin reaches without `allow_private_network`. */
export const REFUSED_RANGES = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "::/128",
  "::1/128",
  "100::/64",
  "2001:db8::/32",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "ff00::/8",
] as const;

/** Host names of cloud metadata services. */
const METADATA_NAMES = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data"]);

/** Decides about addresses and names. */
export class AddressPolicy {
  readonly #refused = new CidrSet([...REFUSED_RANGES]);
  readonly allowPrivate: boolean;

  constructor(allowPrivate: boolean) {
    this.allowPrivate = allowPrivate;
  }

  /** Why `ip` may not be reached, or null when it may. Unparsable addresses are refused. */
  refusesAddress(ip: string): string | null {
    if (this.allowPrivate) return null;
    const bytes = parseIp(ip);
    if (!bytes) return `"${ip}" is not an IP address`;
    const embedded = embeddedV4(bytes);
    if (embedded && this.#refused.contains(embedded)) return `${ip} is an internal address (${embedded})`;
    if (this.#refused.contains(ip)) return `${ip} is an internal address`;
    return null;
  }

  /** Why the host name may not be used, or null. */
  refusesName(host: string): string | null {
    if (this.allowPrivate) return null;
    const name = host.toLowerCase().replace(/\.$/, "");
    if (name === "localhost" || name.endsWith(".localhost")) return `${host} is the local machine`;
    if (METADATA_NAMES.has(name)) return `${host} is a cloud metadata service`;
    return null;
  }
}

/** The IPv4 address carried by an IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) IPv6 address. */
function embeddedV4(b: Uint8Array): string | null {
  const v4 = (at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
  const zeros = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return v4(12);
  if (zeros(0, 12) && !zeros(12, 14)) return v4(12);
  return null;
}
