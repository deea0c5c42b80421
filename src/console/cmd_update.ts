/**
 * `update ...` (spec 3 §4.2, §5.4): the console face of the `update.*`
 * operations. Every form prints the updater's state afterwards, so the
 * operator sees what is pending and what it waits for.
 *
 * @module
 */

import { OpsError } from "../ops/mod.ts";
import type { CommandCall, CommandSpec } from "./registry.ts";

/** The `update.status` answer, as far as the console shows it. */
interface Status {
  version: string;
  auto: boolean;
  phase: string;
  source: string | null;
  executable: string | null;
  platform: string;
  latest: { version: string; size: number } | null;
  pending: { mode: string; version: string | null; waiting_for: string } | null;
  players: number;
  last_check: { at: number; outcome: string; detail: string } | null;
  next_check_at: number | null;
  last_error: string | null;
  last_update: { kind: string; from: string; to: string | null } | null;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}

/** The status in a few lines. */
export function statusLines(s: Status): string[] {
  const lines = [
    `version ${s.version} (${s.platform}); ${s.executable ? `binary ${s.executable}` : "running from source"}`,
    `source ${s.source ?? "none (set update.manifest_url)"}; auto ${s.auto ? "on" : "off"}; ${s.phase}`,
  ];
  if (s.latest) lines.push(`latest ${s.latest.version} (${megabytes(s.latest.size)})`);
  if (s.pending) {
    lines.push(
      `pending: ${s.pending.mode} ${s.pending.version ?? "(after the check)"}, waiting for ${s.pending.waiting_for}`,
    );
  } else lines.push("pending: none");
  if (s.last_check) lines.push(`last check ${iso(s.last_check.at)}: ${s.last_check.outcome} (${s.last_check.detail})`);
  if (s.next_check_at !== null) lines.push(`next check ${iso(s.next_check_at)}`);
  if (s.last_error) lines.push(`last error: ${s.last_error}`);
  if (s.last_update) {
    const u = s.last_update;
    lines.push(u.kind === "update" ? `last update: ${u.from} \u2192 ${u.to}` : `last rollback: from ${u.from}`);
  }
  return lines;
}

/** Calls `update.<name>`; a process without the updater (a test harness, a tool) says so rather than "unknown". */
async function op(call: CommandCall, name: string, args?: unknown): Promise<unknown> {
  try {
    return await call.op(`update.${name}`, args);
  } catch (error) {
    if (error instanceof OpsError && error.code === "UNKNOWN_COMMAND") {
      throw new OpsError("UNAVAILABLE", "self-update is not running in this process");
    }
    throw error;
  }
}

async function show(call: CommandCall, first: string[] = []): Promise<string[]> {
  return [...first, ...statusLines(await op(call, "status") as Status)];
}

/** `update`, `update status|check|apply|force|schedule|cancel|auto|rollback`. */
export function updateCommands(): CommandSpec[] {
  const group = "Self-update";
  const action = (name: string, help: string, said: string): CommandSpec => ({
    name: `update ${name}`,
    help,
    group,
    run: async (_args, call) => {
      await op(call, name);
      return await show(call, [said]);
    },
  });
  return [
    {
      name: "update",
      aliases: ["update status"],
      help: "self-update state: versions, pending update, last check",
      group,
      run: (_args, call) => show(call),
    },
    {
      name: "update check",
      help: "check the release manifest now",
      group,
      run: async (_args, call) => statusLines(await op(call, "check") as Status),
    },
    action("apply", "install the newest release now if no player is online, then restart", "installed; restarting"),
    action(
      "force",
      "install the manifest's release now even with players online, then restart",
      "installed; restarting",
    ),
    action("schedule", "install the newest release after min_idle_minutes without players", "scheduled"),
    {
      name: "update cancel",
      help: "drop the pending update",
      group,
      run: async (_args, call) => {
        const r = await op(call, "cancel") as { cancelled: boolean };
        return await show(call, [r.cancelled ? "cancelled" : "nothing was pending"]);
      },
    },
    {
      name: "update auto",
      args: [{ name: "state", kind: "bool", optional: true }],
      help: "automatic updates on or off (run-time switch), or show it",
      group,
      run: async (args, call) => {
        if (args.has("state")) await op(call, "auto", { enabled: args.bool("state") });
        return await show(call);
      },
    },
    action("rollback", "put the previous binary back and restart into it", "rolled back; restarting"),
  ];
}
