/**
 * The client's one error class. Every promise of the client rejects with a
 * {@link ClientError}; its `code` says why and `reason` carries the detail --
 * for `rejected`, exactly the server's `Err` string.
 *
 * @module
 */

import type { ClientCommandType } from "../protocol/mod.ts";

/**
 * Why a client operation failed:
 * - `rejected`: the server answered `Err(reason)`;
 * - `timeout`: no reply (or event) within the time limit;
 * - `closed`: the client was closed locally with `close()`;
 * - `eof`: the server closed the connection;
 * - `protocol`: the server sent a malformed frame (`cause` is the `ProtocolError`);
 * - `io`: a socket error (`cause` is the runtime's error);
 * - `overflow`: the write queue outgrew its limit (the server stopped reading).
 */
export type ClientErrorCode = "rejected" | "timeout" | "closed" | "eof" | "protocol" | "io" | "overflow";

/** A failed client operation. */
export class ClientError extends Error {
  /** Why it failed. */
  readonly code: ClientErrorCode;
  /** The server's exact `Err` string for `rejected`; a short description otherwise. */
  readonly reason: string;
  /** The command the operation was about, when there is one. */
  readonly command: ClientCommandType | undefined;

  /** An error reading `Cannot <action>: <reason>` (for `rejected`: the server's quoted `Err` string). */
  constructor(
    code: ClientErrorCode,
    action: string,
    reason: string,
    options?: ErrorOptions & {
      command?: ClientCommandType | undefined;
    },
  ) {
    super(
      `Cannot ${action}: ${code === "rejected" ? `server replied Err(${JSON.stringify(reason)})` : reason}`,
      options,
    );
    this.name = "ClientError";
    this.code = code;
    this.reason = reason;
    this.command = options?.command;
  }

  /** The same failure reported for another operation (e.g. each pending request on close). */
  retarget(action: string, command?: ClientCommandType): ClientError {
    const options = this.cause === undefined ? { command } : { cause: this.cause, command };
    return new ClientError(this.code, action, this.reason, options);
  }
}

/** True when `error` is the server's `Err` reply, optionally with exactly `reason`. */
export function isRejection(error: unknown, reason?: string): error is ClientError {
  return error instanceof ClientError && error.code === "rejected" && (reason === undefined || error.reason === reason);
}

/** Human wording of a command for error messages: `JoinRoom` -> `join room`. */
export function actionOf(type: ClientCommandType): string {
  return type.replace(/(?<=[a-z])(?=[A-Z])/g, " ").toLowerCase();
}
