/**
 * PROXY protocol v1 (text) and v2 (binary) headers (spec 3 §4.1), as sent by
 * load balancers in front of the game port. {@link parseProxyHeader} looks at
 * the first bytes of a connection and says whether more are needed, whether a
 * header was found (and how long it is), or whether the bytes are ordinary
 * protocol data (then nothing is consumed).
 *
 * @module
 */

import { formatIp, parseIp } from "./cidr.ts";

/** The 12-byte v2 signature. */
export const V2_SIGNATURE = new Uint8Array([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V1_PREFIX = new TextEncoder().encode("PROXY ");
/** A v1 header is at most 107 bytes including CRLF. */
const V1_MAX = 107;

/** Result of looking at the start of a connection. */
export type ProxyParse =
  | { readonly kind: "need-more" }
  | { readonly kind: "none" }
  | { readonly kind: "header"; readonly length: number; readonly source: { ip: string; port: number } | null }
  | { readonly kind: "invalid"; readonly reason: string };

function startsWith(bytes: Uint8Array, prefix: Uint8Array): "yes" | "no" | "maybe" {
  const n = Math.min(bytes.length, prefix.length);
  for (let i = 0; i < n; i++) if (bytes[i] !== prefix[i]) return "no";
  return bytes.length >= prefix.length ? "yes" : "maybe";
}

function parseV1(bytes: Uint8Array): ProxyParse {
  const limit = Math.min(bytes.length, V1_MAX);
  let end = -1;
  for (let i = 0; i + 1 < limit; i++) {
    if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) {
      end = i;
      break;
    }
  }
  if (end < 0) {
    return bytes.length >= V1_MAX ? { kind: "invalid", reason: "v1 header too long" } : { kind: "need-more" };
  }
  const line = new TextDecoder().decode(bytes.subarray(0, end));
  const parts = line.split(" ");
  if (parts[1] === "UNKNOWN") return { kind: "header", length: end + 2, source: null };
  if (parts.length !== 6 || (parts[1] !== "TCP4" && parts[1] !== "TCP6")) {
    return { kind: "invalid", reason: "malformed v1 header" };
  }
  const port = Number(parts[4]);
  if (!/^\d{1,5}$/.test(parts[4]!) || port > 65535) return { kind: "invalid", reason: "malformed v1 source port" };
  // The address becomes the ban, rate-limit and history key: anything that is
  // not an address of the announced family makes the header malformed.
  const source = v1Address(parts[2]!, parts[1]);
  if (!source || !v1Address(parts[3]!, parts[1])) return { kind: "invalid", reason: "malformed v1 address" };
  return { kind: "header", length: end + 2, source: { ip: source, port } };
}

/** The canonical form of a v1 address of `family`, or null (no brackets, zones or other family). */
function v1Address(text: string, family: "TCP4" | "TCP6"): string | null {
  if (!/^[0-9A-Fa-f.:]+$/.test(text)) return null;
  const isV4 = !text.includes(":");
  if (isV4 !== (family === "TCP4")) return null;
  const bytes = parseIp(text);
  return bytes ? formatIp(bytes) : null;
}

function parseV2(bytes: Uint8Array): ProxyParse {
  if (bytes.length < 16) return { kind: "need-more" };
  const verCmd = bytes[12]!;
  if (verCmd >> 4 !== 2) return { kind: "invalid", reason: "unsupported v2 version" };
  const length = 16 + ((bytes[14]! << 8) | bytes[15]!);
  if (bytes.length < length) return { kind: "need-more" };
  const command = verCmd & 0x0f;
  if (command === 0) return { kind: "header", length, source: null }; // LOCAL: health checks.
  if (command !== 1) return { kind: "invalid", reason: "unknown v2 command" };
  const family = bytes[13]! >> 4;
  const at = 16;
  if (family === 1 && length >= at + 12) {
    return {
      kind: "header",
      length,
      source: { ip: bytes.subarray(at, at + 4).join("."), port: (bytes[at + 8]! << 8) | bytes[at + 9]! },
    };
  }
  if (family === 2 && length >= at + 36) {
    // Canonical text (RFC 5952; IPv4-mapped as dotted IPv4), as every address in the system.
    const ip = formatIp(bytes.subarray(at, at + 16));
    return { kind: "header", length, source: { ip, port: (bytes[at + 32]! << 8) | bytes[at + 33]! } };
  }
  return { kind: "header", length, source: null };
}

/** Classifies the first bytes of a connection from a trusted proxy. */
export function parseProxyHeader(bytes: Uint8Array): ProxyParse {
  const v2 = startsWith(bytes, V2_SIGNATURE);
  if (v2 === "yes") return parseV2(bytes);
  const v1 = startsWith(bytes, V1_PREFIX);
  if (v1 === "yes") return parseV1(bytes);
  return v2 === "maybe" || v1 === "maybe" ? { kind: "need-more" } : { kind: "none" };
}
