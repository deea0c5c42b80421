/**
 * How large a frame may be, and what a frame that breaks the rules costs
 * its connection (issue 14 "large frames pin memory").
 *
 * Before login the only commands that do anything are the login commands
 * (protocol.md §3.2, §3.5) and `Ping`; the largest valid one bounds every
 * frame, checked from the length prefix, before a payload byte is kept:
 *
 * - `Authenticate`, `ConsoleAuthenticate`, `GameMonitorAuthenticate`:
 *   tag (1) + `Varchar<32>` token (ULEB length 1 + 32 bytes) = 34 bytes;
 * - `RoomMonitorAuthenticate`: tag (1) + `Vec<u8>` key (ULEB count 1 +
 *   64 bytes; the server compares exactly 64, protocol.md §3.5) = 66 bytes.
 *
 * @module
 */

import { ProtocolError } from "../protocol/mod.ts";
import { FrameBudgetExceeded, FrameTooLarge } from "./frame_assembler.ts";
import type { CloseReason } from "./session_types.ts";

/** Length of the room monitor's key (protocol.md §3.5: HKDF output, compared exactly). */
export const ROOM_MONITOR_KEY_BYTES = 64;
/** Longest token a login command carries (`Varchar<32>`, protocol.md §3.2). */
export const LOGIN_TOKEN_BYTES = 32;

/** Largest payload accepted before login: the largest valid login command (see the module comment). */
export const LOGIN_FRAME_MAX = Math.max(1 + 1 + LOGIN_TOKEN_BYTES, 1 + 1 + ROOM_MONITOR_KEY_BYTES);

/** What a read failure does to its connection. */
export interface ReadFailure {
  readonly reason: CloseReason;
  readonly message: string;
  readonly fields: Record<string, unknown>;
  readonly counter: "malformed_frames" | "frame_budget_exceeded" | null;
}

/** Classifies an error thrown while splitting or decoding frames. */
export function readFailure(error: unknown): ReadFailure {
  if (error instanceof FrameTooLarge) {
    return {
      reason: "frame-too-large",
      message: "frame larger than any login command before login, closing connection",
      fields: { length: error.length, limit: error.limit },
      counter: "malformed_frames",
    };
  }
  if (error instanceof FrameBudgetExceeded) {
    return {
      reason: "over-budget",
      message: "frame buffer budget (frame_buffer_budget) exhausted, closing the connection that asked for more",
      fields: { length: error.length },
      counter: "frame_budget_exceeded",
    };
  }
  if (error instanceof ProtocolError) {
    return {
      reason: "malformed",
      message: "malformed frame, closing connection",
      fields: { reason: error.message, offset: error.offset },
      counter: "malformed_frames",
    };
  }
  throw error;
}
