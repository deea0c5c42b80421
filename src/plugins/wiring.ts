/**
 * Attaches the plugin host to a running server (from the outside, spec 3
 * §4.6): its operations replace the `plugin.*` placeholders of the
 * operations layer, the `plugins` section joins the `runtime` report, a
 * room's extension data goes with the room, chat commands reach their
 * handlers, plugins' command vetoes join the command pipeline through one
 * veto hook, and `loaded_plugins` of `server.stats` reads the host. Returns the host and a `stop` that undoes
 * all of it.
 *
 * @module
 */

import { answerChatCommand } from "./chat_commands.ts";
import { PluginHost } from "./host.ts";
import type { PluginHostOptions } from "./host_options.ts";
import { extensionOps, fileOps, stateOps } from "./ops_data.ts";
import { vetoOps } from "./ops_vetoes.ts";
import { pluginOps } from "./ops_plugins.ts";
import { RecentEvents } from "./recent_events.ts";
import { CommandVetoes } from "./vetoes.ts";

/** The attached host. */
export interface PluginSystem {
  readonly host: PluginHost;
  /** Resolves once the plugins found at start-up were loaded (or failed). */
  readonly started: Promise<void>;
  /** Readiness figures for `/health/ready`; null while there are no plugins (the probe's body stays as it is). */
  health(): { starting: boolean; summary: Record<string, unknown> } | null;
  /** Stops the plugins and detaches everything. */
  stop(): Promise<void>;
}

/** Builds the host, attaches its operations and starts loading plugins (in the background). */
export function startPlugins(options: PluginHostOptions): PluginSystem {
  const vetoes = new CommandVetoes();
  const host = new PluginHost({ ...options, onPluginStopped: (id) => vetoes.removeOwner(id) });
  const { ops, bus, clock } = options;
  const recent = new RecentEvents(bus);
  const owner = "plugin-host";
  const removers = [
    ...pluginOps(host).map((op) => ops.replace(op, owner)),
    ...extensionOps(() => host.ext).map((op) => ops.replace(op, owner)),
    ...fileOps(options.dataDir, options.limits.max_file_bytes).map((op) => ops.replace(op, owner)),
    ...stateOps(recent).map((op) => ops.replace(op, owner)),
    ...vetoOps(vetoes, () => clock.now()).map((op) => ops.replace(op, owner)),
    // The one veto hook of all plugins: rules checked in memory, never a call into a plugin.
    ops.context.deps.server.commands.beforeCommand((command) => vetoes.check(command, clock.now()), "plugin-vetoes"),
    ops.context.addStatusSection("plugins", () => host.status()),
    bus.listen((event) => {
      if (event.kind === "room.deleted") void host.ext.drop("room", event.room).catch(() => {});
      if (event.kind === "chat.message" && event.content.startsWith("!")) {
        void answerChatCommand(event, host, ops, options.log).catch(() => {});
      }
    }),
  ];
  // The plugin files are listed at once, so readiness knows from the first probe whether plugins are still loading.
  const started = host.start(host.scanSync()).catch((error) => {
    options.log.error("plugin host did not start", { error: String(error) });
  });
  return {
    host,
    started,
    health: () => host.list().length || host.starting ? { starting: host.starting, summary: host.status() } : null,
    async stop() {
      await started;
      await host.stop();
      recent.close();
      for (const remove of removers) remove();
    },
  };
}
