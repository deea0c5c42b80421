/**
 * What one plugin's host functions reach: the {@link PluginSlot} the host
 * keeps per plugin, its facilities (configuration, timers, sockets,
 * outbound HTTP, handlers), and the {@link HostContext} the dispatcher
 * passes to every host function -- the plugin as an operations actor with
 * its capabilities.
 *
 * @module
 */

import type { Delivery } from "../events/mod.ts";
import type { Capability } from "../ops/mod.ts";
import type { Logger } from "../util/log.ts";
import { AddressPolicy } from "./address_policy.ts";
import { PluginConfig } from "./config_store.ts";
import type { PluginFacilities } from "./facilities.ts";
import type { HostContext } from "./host/table.ts";
import type { PluginHost } from "./host.ts";
import type { PluginManifest } from "./manifest.ts";
import type { PluginRuntime } from "./runtime.ts";
import { PluginTimers } from "./timers.ts";

/** What the host keeps about one plugin. */
export interface PluginSlot {
  readonly id: string;
  readonly file: string;
  readonly log: Logger;
  readonly runtime: PluginRuntime;
  manifest: PluginManifest | null;
  /** What `get-info` answered. */
  info: Record<string, unknown> | null;
  sha256: string | null;
  compileMs: number;
  loadMs: number;
  facilities: PluginFacilities | null;
  delivery: Delivery | null;
  /** Lifecycle work runs one after another. */
  queue: Promise<void>;
}

/** Largest outbound request body. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

async function facilities(host: PluginHost, slot: PluginSlot): Promise<PluginFacilities> {
  const { limits, dataDir, clock } = host.options;
  // Sockets and outbound HTTP (Node's `net`, `http`, `https` and `dns` underneath) are loaded with the first
  // plugin, not with the server: most servers run none (issue 15, "Load on demand").
  const [{ OutboundHttp }, { PluginTcp }] = await Promise.all([import("./outbound_http.ts"), import("./tcp.ts")]);
  const policy = new AddressPolicy(limits.allow_private_network);
  const notify = (method: string, take: () => unknown[] | null) => slot.runtime.notify(method, take);
  return {
    config: await PluginConfig.open(`${dataDir}/${slot.id}/config.json`),
    timers: new PluginTimers(clock, (id) => notify("timer:fired", () => [id])),
    tcp: new PluginTcp(policy, notify),
    http: new OutboundHttp(policy, {
      timeoutMs: limits.http_timeout_secs * 1000,
      maxResponseBytes: limits.max_http_response_bytes,
      maxRequestBytes: MAX_REQUEST_BYTES,
    }, clock),
    nodeKey: () => host.nodeKey(),
    handlers: {
      register: (descriptor) => host.registrations.handler(slot.id, descriptor),
      unregister: (method) => host.registrations.unhandle(slot.id, method),
      list: () => host.registrations.list(slot.id).handlers,
    },
  };
}

function hostContext(host: PluginHost, slot: PluginSlot): HostContext {
  const capabilities: readonly Capability[] = slot.manifest?.capabilities ?? [];
  const actor = { kind: "plugin" as const, id: slot.id, capabilities };
  return {
    id: slot.id,
    actor,
    has: (capability) => capabilities.includes(capability),
    op: (name, args) => host.options.ops.call(name, args, actor),
    clock: host.options.clock,
    log: slot.log,
    get facilities() {
      if (!slot.facilities) throw new Error("the plugin has no facilities");
      return slot.facilities;
    },
  };
}

/** Builders used by the host. */
export const buildContext = { facilities, hostContext } as const;
