/**
 * Release versions (`MAJOR.MINOR.PATCH` with an optional `-prerelease`),
 * compared the semantic-versioning way: a prerelease sorts before its
 * release, numeric identifiers numerically, others in ASCII order. Only
 * this strict form is accepted, so a manifest with a typo is refused
 * instead of being ordered by guesswork.
 *
 * @module
 */

const VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** A parsed version. */
export interface Version {
  readonly core: readonly [number, number, number];
  readonly pre: readonly string[];
}

/** Parses `1.2.3` or `1.2.3-rc.1`; null when the text is not such a version. */
export function parseVersion(text: string): Version | null {
  const m = VERSION.exec(text);
  if (!m) return null;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split(".") : [] };
}

function comparePre(a: readonly string[], b: readonly string[]): number {
  if (!a.length || !b.length) return (b.length ? 1 : 0) - (a.length ? 1 : 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i], y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x), ny = /^\d+$/.test(y);
    if (nx && ny && Number(x) !== Number(y)) return Number(x) < Number(y) ? -1 : 1;
    if (nx !== ny) return nx ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Negative when `a` is older than `b`, 0 when equal, positive when newer. Throws a RangeError for a malformed one. */
export function compareVersions(a: string, b: string): number {
  const va = parseVersion(a), vb = parseVersion(b);
  if (!va || !vb) throw new RangeError(`Cannot compare versions: "${va ? b : a}" is not MAJOR.MINOR.PATCH[-pre]`);
  for (let i = 0; i < 3; i++) if (va.core[i] !== vb.core[i]) return va.core[i]! < vb.core[i]! ? -1 : 1;
  return comparePre(va.pre, vb.pre);
}
