/**
 * The node key of `phira-crypto` (extended.md §2.11): 32 bytes derived from
 * the service secret (Argon2id then HKDF-SHA256 with info `node_key`, the
 * derivation the monitor key uses) seed an Ed25519 key pair. `sign` uses
 * the private key, which never leaves the host; `verify` checks a signature
 * against any 32-byte Ed25519 public key, so peers can verify each other's
 * signatures with the key `get-node-public-key` returns. (The reference
 * implementation computes an HMAC and calls the HMAC key's hash the public
 * key, which cannot verify anything; a real signature scheme can.) All
 * cryptography is WebCrypto's and hash-wasm's.
 *
 * @module
 */

import { deriveKey } from "../net/mod.ts";

/** PKCS #8 prefix of an Ed25519 private key (RFC 8410 §7): the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = [
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
];

/** Signs with the node key. */
export class NodeKey {
  readonly #privateKey: CryptoKey;
  /** The raw 32-byte public key. */
  readonly publicKey: Uint8Array;

  private constructor(privateKey: CryptoKey, publicKey: Uint8Array) {
    this.#privateKey = privateKey;
    this.publicKey = publicKey;
  }

  /** The key of a 32-byte seed. */
  static async fromSeed(seed: Uint8Array): Promise<NodeKey> {
    if (seed.length !== 32) throw new RangeError(`Cannot make a node key: the seed is ${seed.length} bytes, not 32`);
    const pkcs8 = new Uint8Array([...PKCS8_ED25519_PREFIX, ...seed]);
    const key = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
    const jwk = await crypto.subtle.exportKey("jwk", key);
    const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]);
    return new NodeKey(privateKey, Uint8Array.fromBase64(jwk.x ?? "", { alphabet: "base64url" }));
  }

  /** The node key of a service secret (`service_secret_key`). */
  static async fromSecret(secret: string): Promise<NodeKey> {
    return await NodeKey.fromSeed(await deriveKey(secret, "node_key", 32));
  }

  /** An Ed25519 signature (64 bytes) of `payload`. */
  async sign(payload: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(await crypto.subtle.sign("Ed25519", this.#privateKey, payload as BufferSource));
  }

  /** True when `signature` is `publicKey`'s signature of `payload`; throws a RangeError for a malformed key. */
  static async verify(publicKey: Uint8Array, payload: Uint8Array, signature: Uint8Array): Promise<boolean> {
    if (publicKey.length !== 32) throw new RangeError(`the public key is ${publicKey.length} bytes, not 32`);
    if (signature.length !== 64) return false;
    const key = await crypto.subtle.importKey("raw", publicKey as BufferSource, { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify("Ed25519", key, signature as BufferSource, payload as BufferSource);
  }
}

/** SHA-256 of `data`. */
export async function sha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data as BufferSource));
}
