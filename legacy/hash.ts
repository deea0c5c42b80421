/**
 * SHA-256 of text (WebCrypto), as lower-case hex.
 *
 * @module
 */

/** SHA-256 of `text` (UTF-8) as hex. */
export async function sha256Hex(text: string | Uint8Array): Promise<string> {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}
