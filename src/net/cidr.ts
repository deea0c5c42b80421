/**
 * IPv4/IPv6 addresses and CIDR blocks, for `proxy_allow_cidr` (spec 3 §2.3).
 * IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) match IPv4 blocks.
 *
 * @module
 */

/** An address as 16 bytes (IPv4 is mapped into `::ffff:0:0/96`). */
export type IpBytes = Uint8Array;

function parseV4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    out.push(Number(p));
  }
  return out;
}

/** Parses an IPv4 or IPv6 address into 16 bytes, or null. */
export function parseIp(text: string): IpBytes | null {
  const v4 = parseV4(text);
  if (v4) return new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4]);
  let s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(":")) return null;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  const maybeV4 = parseV4(s.slice(lastColon + 1));
  if (maybeV4) {
    tail = maybeV4;
    s = s.slice(0, lastColon + 1) + "0:0";
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const g = all[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    const v = parseInt(g, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  }
  if (tail.length) out.set(tail, 12);
  return out;
}

/** True for `::ffff:0:0/96`, the IPv4-mapped block. */
function isV4Mapped(bytes: IpBytes): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/**
 * The one text form of an address (RFC 5952 §4): IPv4-mapped addresses as
 * dotted IPv4, IPv6 in lower case without leading zeros, the longest run of
 * two or more zero groups (the first of equal runs) written `::`. Bans, rate
 * limits and IP history compare addresses as strings, so every address that
 * enters the system goes through this.
 */
export function formatIp(bytes: IpBytes): string {
  if (isV4Mapped(bytes)) return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  let bestAt = -1;
  let bestLen = 1; // RFC 5952 §4.2.2: a single zero group is not compressed.
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestAt, bestLen] = [i, j - i];
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(":");
  if (bestAt < 0) return hex(groups);
  return `${hex(groups.slice(0, bestAt))}::${hex(groups.slice(bestAt + bestLen))}`;
}

/** The canonical form ({@link formatIp}) of an address text, or null when it is not an address. */
export function canonicalIp(text: string): string | null {
  const bytes = parseIp(text.trim());
  return bytes ? formatIp(bytes) : null;
}

/** A parsed CIDR block. */
export interface Cidr {
  readonly text: string;
  readonly bytes: IpBytes;
  /** Prefix length over the 128-bit form. */
  readonly bits: number;
}

/** Parses `a.b.c.d/n`, `x::/n` or a bare address (a /32 or /128). */
export function parseCidr(text: string): Cidr | null {
  const [addr, len, extra] = text.trim().split("/");
  if (extra !== undefined || !addr) return null;
  const bytes = parseIp(addr);
  if (!bytes) return null;
  const v4 = parseV4(addr) !== null;
  const max = v4 ? 32 : 128;
  if (len !== undefined && !/^\d{1,3}$/.test(len)) return null;
  const prefix = len === undefined ? max : Number(len);
  if (prefix > max) return null;
  return { text, bytes, bits: v4 ? prefix + 96 : prefix };
}

/** Whether `ip` lies inside `cidr`. */
export function cidrContains(cidr: Cidr, ip: IpBytes): boolean {
  let bits = cidr.bits;
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((cidr.bytes[i]! & mask) !== (ip[i]! & mask)) return false;
  }
  return true;
}

/** A set of blocks; `contains` answers for an address string. */
export class CidrSet {
  readonly #blocks: Cidr[];
  constructor(texts: readonly string[]) {
    this.#blocks = texts.map((t) => {
      const c = parseCidr(t);
      if (!c) throw new TypeError(`Cannot parse CIDR "${t}"`);
      return c;
    });
  }
  /** True when no block is configured. */
  get empty(): boolean {
    return this.#blocks.length === 0;
  }
  contains(ip: string): boolean {
    const bytes = parseIp(ip);
    return bytes !== null && this.#blocks.some((b) => cidrContains(b, bytes));
  }
}
