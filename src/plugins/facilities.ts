/**
 * What belongs to one plugin besides its process: its configuration,
 * timers, sockets, outbound HTTP, the node key and the handlers it
 * registered. Host functions reach them through the {@link HostContext}.
 *
 * @module
 */

import type { PluginConfig } from "./config_store.ts";
import type { NodeKey } from "./node_key.ts";
import type { OutboundHttp } from "./outbound_http.ts";
import type { PluginTcp } from "./tcp.ts";
import type { PluginTimers } from "./timers.ts";

/** `phira-handler.handler-descriptor` in host terms. */
export interface HandlerDescriptor {
  readonly method: string;
  readonly description: string;
  readonly requestSchema: string | null;
  readonly responseSchema: string | null;
}

/** The handlers of one plugin (each is an operation and a console command). */
export interface PluginHandlers {
  /** Registers or replaces one; throws an Error naming the problem (bad name, taken by someone else). */
  register(descriptor: HandlerDescriptor): void;
  /** Removes one; false when the plugin has none of that name. */
  unregister(method: string): boolean;
  list(): HandlerDescriptor[];
}

/** One plugin's facilities. */
export interface PluginFacilities {
  readonly config: PluginConfig;
  readonly timers: PluginTimers;
  readonly tcp: PluginTcp;
  readonly http: OutboundHttp;
  /** The node key, derived on first use (Argon2id takes a moment); null when no `service_secret_key` is configured. */
  nodeKey(): Promise<NodeKey | null>;
  readonly handlers: PluginHandlers;
}
