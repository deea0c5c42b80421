/**
 * The records persistence writes about itself and its logins: a login
 * (journaled before `Authenticate(Ok)`, spec 3 §3.2), its compensation, and
 * this server instance's start, heartbeat and stop.
 *
 * @module
 */

import type { LoginRecord } from "../../server/context.ts";
import type { InstanceEntry, LoginEntry, LoginRevokedEntry } from "../types.ts";

/** The record of a login accepted by `instance`. */
export function loginEntry(login: LoginRecord, instance: string): LoginEntry {
  const { user_id: user, session_id: session, name, language, ip, category, at } = login;
  return { t: "login", user, name, language, ip, session, category, at, instance };
}

/** The compensation of a journaled login that never became Active (spec 3 §3.2 rollback). */
export function revocationEntry(login: LoginRecord, instance: string, reason: string, at: number): LoginRevokedEntry {
  return { t: "login.revoked", user: login.user_id, ip: login.ip, session: login.session_id, instance, reason, at };
}

/** This instance's start, heartbeat or stop record. */
export function instanceEntry(id: string, startedAt: number, at: number, stopped: boolean): InstanceEntry {
  let host = "unknown";
  try {
    host = Deno.hostname();
  } catch {
    // No --allow-sys: keep "unknown".
  }
  return { t: "instance", id, pid: Deno.pid, host, started_at: startedAt, at, stopped };
}
