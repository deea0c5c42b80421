/**
 * OpenUDS error codes (spec 3 §7 rule 1; documented in `docs/openuds.md`):
 * the operations layer's codes (`OpsErrorCode`, every failed command) plus
 * the three of the socket protocol itself.
 *
 * @module
 */

import type { OpsErrorCode } from "../ops/mod.ts";

/** Every `error.code` a client can see. */
export type UdsErrorCode =
  | OpsErrorCode
  /** A command before the handshake finished, or a wrong token. */
  | "UNAUTHORIZED"
  /** A frame that is not a JSON object, or an unknown frame type. */
  | "INVALID_FRAME"
  /** `max_connections` clients are connected already. */
  | "TOO_MANY_CONNECTIONS";
