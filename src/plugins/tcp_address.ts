/**
 * Addresses of `phira-tcp` (spec 3 §4.6): `host:port` as plugins write it,
 * and the resolution whose every address the outbound policy checks.
 *
 * @module
 */

/** Splits `host:port` / `[v6]:port`. */
export function splitAddress(addr: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(addr.trim());
  const port = Number(m?.[3]);
  if (!m || port > 65535) throw new RangeError(`invalid address "${addr}" (expected host:port)`);
  return { host: (m[1] ?? m[2])!, port };
}

/** The A and AAAA addresses of `host` (none when it does not resolve). */
export async function resolveHost(host: string): Promise<string[]> {
  const [a, aaaa] = await Promise.all([
    Deno.resolveDns(host, "A").catch(() => [] as string[]),
    Deno.resolveDns(host, "AAAA").catch(() => [] as string[]),
  ]);
  return [...a, ...aaaa];
}
