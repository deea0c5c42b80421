/**
 * What `on_before_command(user, type, data)` receives for each client
 * command (peers note §2.4, the original's names and data tables): `chat`
 * `{message}`, `create_room` `{room_id}`, `join_room` `{room_id, monitor}`,
 * `select_chart` `{chart_id}`, `played` `{chart_id, record_id}` (the
 * original put the record id under `chart_id`; both are given), `lock_room`
 * / `cycle_room` `{flag}`, the others `{}`. `ping` and `authenticate` never
 * reach the hook: the session answers pings itself and commands before
 * login are not hookable.
 *
 * @module
 */

import type { ClientCommand } from "../../src/protocol/mod.ts";

/** The hook's `type` and `data` for a command, or null for commands the hook does not see. */
export function hookCommand(cmd: ClientCommand): { type: string; data: Record<string, unknown> } | null {
  switch (cmd.type) {
    case "Chat":
      return { type: "chat", data: { message: cmd.message } };
    case "Touches":
      return { type: "touches", data: {} };
    case "Judges":
      return { type: "judges", data: {} };
    case "CreateRoom":
      return { type: "create_room", data: { room_id: cmd.id } };
    case "JoinRoom":
      return { type: "join_room", data: { room_id: cmd.id, monitor: cmd.monitor } };
    case "LeaveRoom":
      return { type: "leave_room", data: {} };
    case "LockRoom":
      return { type: "lock_room", data: { flag: cmd.lock } };
    case "CycleRoom":
      return { type: "cycle_room", data: { flag: cmd.cycle } };
    case "SelectChart":
      return { type: "select_chart", data: { chart_id: cmd.id } };
    case "RequestStart":
      return { type: "request_start", data: {} };
    case "Ready":
      return { type: "ready", data: {} };
    case "CancelReady":
      return { type: "cancel_ready", data: {} };
    case "Played":
      return { type: "played", data: { chart_id: cmd.id, record_id: cmd.id } };
    case "Abort":
      return { type: "abort", data: {} };
    default:
      return null;
  }
}
