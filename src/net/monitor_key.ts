/**
 * Room-monitor key derivation (protocol.md §3.5, extended.md §5.2): the
 * shared secret (`SERVICE_SECRET_KEY`, alias `HSN_SECRET_KEY`) -> Argon2id
 * (v0x13, m = 19456 KiB, t = 2, p = 1, 32 bytes, salt `some$random#salt`) ->
 * HKDF-SHA256 (no salt, info = purpose) -> 64 bytes. Argon2id comes from
 * `hash-wasm`, HKDF from WebCrypto; nothing is hand-rolled.
 *
 * @module
 */

/** Fixed salt of the reference derivation (16 raw bytes). */
const SALT = new TextEncoder().encode("some$random#salt");

/** The Argon2id input key material for `secret`. */
export async function monitorIkm(secret: string): Promise<Uint8Array> {
  // Loaded with the first derivation (issue 15 "Load on demand"): a server without monitor keys never needs it.
  const { argon2id } = await import("hash-wasm");
  return await argon2id({
    password: secret,
    salt: SALT,
    parallelism: 1,
    iterations: 2,
    memorySize: 19456,
    hashLength: 32,
    outputType: "binary",
  });
}

/** Derives `length` bytes for `info` (`room_monitor`: 64 bytes; `jwt`: 64; `node_key`: 32). */
export async function deriveKey(secret: string, info: string, length: number): Promise<Uint8Array> {
  return await expandKey(await monitorIkm(secret), info, length);
}

/** Several keys of one secret, running the (deliberately slow) Argon2id step once. */
export async function deriveKeys(
  secret: string,
  wanted: readonly { readonly info: string; readonly length: number }[],
): Promise<Uint8Array[]> {
  const ikm = await monitorIkm(secret);
  return await Promise.all(wanted.map((w) => expandKey(ikm, w.info, w.length)));
}

/** The HKDF-SHA256 step: `length` bytes for `info` from the input key material. */
async function expandKey(ikm: Uint8Array, info: string, length: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new Uint8Array(ikm), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode(info) },
    key,
    length * 8,
  );
  return new Uint8Array(bits);
}

/** The 64-byte key a room monitor presents. */
export function roomMonitorKey(secret: string): Promise<Uint8Array> {
  return deriveKey(secret, "room_monitor", 64);
}

/** Constant-time equality of two byte strings (length is not secret). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
