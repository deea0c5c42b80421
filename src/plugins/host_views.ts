/**
 * The plugin host's plugins as operators see them: `plugin list`, `plugin
 * info`, and the figures of `runtime` and `/health/ready`.
 *
 * @module
 */

import type { Capability } from "../ops/mod.ts";
import type { PluginSlot } from "./host_context.ts";
import type { Registrations } from "./registrations.ts";
import type { Slots } from "./slots.ts";
import { STATE_LABELS } from "./state.ts";

/** A plugin as `plugin list` shows it. */
export interface PluginSummary {
  readonly id: string;
  readonly name: string | null;
  readonly version: string | null;
  readonly state: string;
  readonly reason: string | null;
  readonly since: number;
  readonly capabilities: readonly Capability[];
}

/** The summary of one plugin. */
export function summaryOf(s: PluginSlot): PluginSummary {
  return {
    id: s.id,
    name: typeof s.info?.name === "string" ? s.info.name : null,
    version: typeof s.info?.version === "string" ? s.info.version : null,
    state: s.runtime.state ? STATE_LABELS[s.runtime.state] : "Loaded",
    reason: s.runtime.reason,
    since: s.runtime.since,
    capabilities: s.manifest?.capabilities ?? [],
  };
}

/** One plugin in detail: its summary, what it was built from, its figures and what it registered. */
export function infoOf(s: PluginSlot, registrations: Registrations): Record<string, unknown> {
  return {
    ...summaryOf(s),
    author: typeof s.info?.author === "string" ? s.info.author : null,
    description: typeof s.info?.description === "string" ? s.info.description : null,
    file: s.file,
    sha256: s.sha256,
    capabilities_file: s.manifest?.sidecar ?? false,
    events: s.manifest?.events ?? [],
    pid: s.runtime.process?.pid ?? null,
    compile_ms: s.compileMs,
    load_ms: s.loadMs,
    busy: s.runtime.busy,
    waiting: s.runtime.waiting,
    queue: s.delivery?.status() ?? null,
    counters: { ...s.runtime.counters },
    timers: s.facilities?.timers.size ?? 0,
    sockets: s.facilities?.tcp.size ?? 0,
    ...registrations.list(s.id),
  };
}

/** Figures over every plugin for `runtime` and `/health/ready`. */
export function statusOf(plugins: readonly PluginSlot[], starting: boolean, slots: Slots): Record<string, unknown> {
  const counts = { loaded: 0, enabled: 0, disabled: 0, error: 0 };
  let overflowed = 0;
  for (const s of plugins) {
    if (s.runtime.state) counts[s.runtime.state]++;
    overflowed += s.delivery?.status().overflowed ?? 0;
  }
  return {
    starting,
    plugins: plugins.length,
    ...counts,
    busy: slots.busy,
    max_event_concurrency: slots.capacity,
    events_overflowed: overflowed,
    quarantined: plugins.filter((s) => s.runtime.state === "error").map((s) => ({
      id: s.id,
      reason: s.runtime.reason,
    })),
  };
}
