import { equal } from "node:assert/strict";
import { nextState, type PluginState, type PluginTransition } from "./state.ts";

Deno.test("every plugin state transition of the table, and the refused ones", () => {
  const table: [PluginState | null, PluginTransition, PluginState | "removed" | null][] = [
    [null, "loaded", "loaded"],
    [null, "load_failed", "error"],
    ["loaded", "load_failed", "error"],
    ["loaded", "init_ok", "enabled"],
    ["loaded", "init_failed", "error"],
    ["loaded", "init_timeout", "error"],
    ["enabled", "quarantine", "error"],
    ["loaded", "disable", "disabled"],
    ["enabled", "disable", "disabled"],
    ["error", "disable", "disabled"],
    ["disabled", "enable", "loaded"],
    ["error", "enable", "loaded"],
    ["enabled", "reload", "loaded"],
    ["error", "reload", "loaded"],
    ["disabled", "remove", "removed"],
    // Refused:
    ["enabled", "enable", null],
    ["disabled", "disable", null],
    ["disabled", "quarantine", null],
    ["enabled", "init_ok", null],
    [null, "remove", null],
    [null, "reload", null],
  ];
  for (const [from, event, to] of table) equal(nextState(from, event), to, `${from} + ${event}`);
});
