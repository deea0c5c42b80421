/**
 * Chat commands for plugins: a handler named `chat.<word>` also answers
 * `!<word>` typed in a room. The host sees the chat line on the event bus
 * (after it was delivered to the room as usual), calls the plugin's
 * `on-api("chat.<word>", [user-id, room-id, rest of the line])` and, when the
 * answer is text, sends it to that player as a system message on the
 * plugin's behalf (capability `send`). Chat is rate-limited per session
 * (spec 3 §5 rule 6), so this adds no unbounded work.
 *
 * @module
 */

import type { DomainEventOf } from "../events/mod.ts";
import type { ServerOps } from "../ops/mod.ts";
import type { Logger } from "../util/log.ts";
import type { PluginHost } from "./host.ts";
import { toJsonValue } from "./json_value.ts";

/** `!word rest...` -> word and rest; null for other lines. */
export function parseChatCommand(content: string): { word: string; rest: string } | null {
  const m = /^!([a-z][a-z0-9_]{0,31})(?:\s+([\s\S]*))?$/i.exec(content.trim());
  return m ? { word: m[1]!.toLowerCase(), rest: (m[2] ?? "").trim() } : null;
}

/** Answers one chat line if it is a plugin's chat command. */
export async function answerChatCommand(
  event: DomainEventOf<"chat.message">,
  host: PluginHost,
  ops: ServerOps,
  log: Logger,
): Promise<void> {
  const command = parseChatCommand(event.content);
  if (!command || event.user <= 0) return;
  const method = `chat.${command.word}`;
  const plugin = host.registrations.handlerOwner(method);
  if (!plugin) return;
  const out = await host.call(plugin, method, [
    toJsonValue(event.user),
    toJsonValue(event.room),
    toJsonValue(command.rest),
  ]);
  if (!out.ok) {
    log.debug("chat command failed", { plugin, method, error: out.error });
    return;
  }
  if (typeof out.value !== "string" || out.value === "") return;
  const capabilities = host.list().find((p) => p.id === plugin)?.capabilities ?? [];
  const actor = { kind: "plugin" as const, id: plugin, capabilities };
  await ops.call("broadcast.user", { user_id: event.user, message: out.value.slice(0, 200) }, actor).catch((error) => {
    log.debug("chat command answer not sent", { plugin, method, error: String(error) });
  });
}
