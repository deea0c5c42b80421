/**
 * The thread that runs Argon2id for the account backend (started by
 * `password_pool.ts`), so that 60 ms of hashing per login never blocks the
 * event loop of the service or of a game server it is mounted in.
 *
 * Protocol: `{ id, op: "hash", password, params }` -> `{ id, result: encoded }`;
 * `{ id, op: "verify", password, encoded }` -> `{ id, result: boolean }`;
 * a failure -> `{ id, error: message }`. Requests run one at a time.
 *
 * @module
 */

import { argon2Check, argon2Hash, type Argon2Params } from "./passwords.ts";

/** A request to the worker. */
export type PasswordRequest =
  | { readonly id: number; readonly op: "hash"; readonly password: string; readonly params: Argon2Params }
  | { readonly id: number; readonly op: "verify"; readonly password: string; readonly encoded: string };

/** The worker's reply. */
export type PasswordReply =
  | { readonly id: number; readonly result: string | boolean }
  | { readonly id: number; readonly error: string };

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<PasswordRequest>) => void) | null;
  postMessage(message: PasswordReply): void;
};

scope.onmessage = async (e: MessageEvent<PasswordRequest>) => {
  const r = e.data;
  try {
    const result = r.op === "hash" ? await argon2Hash(r.password, r.params) : await argon2Check(r.password, r.encoded);
    scope.postMessage({ id: r.id, result });
  } catch (error) {
    scope.postMessage({ id: r.id, error: error instanceof Error ? error.message : String(error) });
  }
};
