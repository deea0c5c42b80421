/**
 * Text renderings of the operator views for the console, the terminal UI
 * and the in-game console (one line per item, short enough for chat).
 *
 * @module
 */

import type { RoomInfo, RoomSummary, RoomVisit, RoundView, UserView } from "../ops/mod.ts";

/** `2026-01-01 00:00:00Z`. */
export function fmtTime(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

/** `1h 02m 03s`, `4m 05s`, `6s`. */
export function fmtDuration(secs: number): string {
  const s = Math.max(0, Math.floor(secs));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  if (h) return `${h}h ${pad(m)}m ${pad(rest)}s`;
  if (m) return `${m}m ${pad(rest)}s`;
  return `${rest}s`;
}

function host(id: number | null): string {
  return id === null ? "none" : id === -1 ? "system" : String(id);
}

function flags(r: RoomSummary): string {
  const on = (
    [
      ["locked", r.locked],
      ["cycle", r.cycle],
      ["hidden", r.hidden],
      ["persistent", r.persistent],
      ["tournament", r.tournament],
      ["live", r.live],
      ["degraded", r.degraded],
    ] as const
  ).filter(([, v]) => v).map(([k]) => k);
  return on.length ? ` [${on.join(",")}]` : "";
}

/** `abc  SelectingChart  2/100 +1 monitor  host 100  chart 7 "Lucky Seven" [locked]`. */
export function roomLine(r: RoomSummary): string {
  const monitors = r.monitor_count ? ` +${r.monitor_count} monitor${r.monitor_count > 1 ? "s" : ""}` : "";
  const chart = r.chart_id === null ? "no chart" : `chart ${r.chart_id} "${r.chart_name ?? ""}"`;
  return `${r.room_id}  ${r.state}  ${r.player_count}/${r.max_users}${monitors}  host ${host(r.host_id)}  ${chart}${
    flags(r)
  }`;
}

/** The lines of `room info`. */
export function roomInfoLines(r: RoomInfo): string[] {
  const players = r.players.map((p) =>
    `${p.name}(${p.id})${p.online ? "" : " offline"}${p.ready ? " ready" : ""}${p.finished ? " finished" : ""}`
  );
  return [
    `room ${r.room_id}  uuid ${r.uuid}`,
    `  state ${r.state}${r.round_id ? ` (round ${r.round_id})` : ""}  host ${host(r.host_id)}  created ${
      fmtTime(r.created_at)
    }${r.creator_id === null ? " by an operator" : ` by ${r.creator_id}`}`,
    `  players ${r.player_count}/${r.max_users}: ${players.join(", ") || "none"}`,
    `  monitors: ${r.monitors.map((m) => `${m.name}(${m.id})`).join(", ") || "none"}`,
    `  chart ${r.chart_id === null ? "none" : `${r.chart_id} "${r.chart_name ?? ""}"`}  api endpoint ${
      r.api_endpoint ?? "server default"
    }`,
    `  flags: locked=${r.locked} cycle=${r.cycle} hidden=${r.hidden} persistent=${r.persistent} tournament=${r.tournament} live=${r.live} degraded=${r.degraded}`,
    `  kept: ${r.rounds_kept} rounds, ${r.chat_kept} chat lines, ${r.bans} room bans`,
  ];
}

/** `100 Alice  room abc (monitor)  en-US  127.0.0.1  admin`. */
export function userLine(u: UserView): string {
  const room = u.room_id ? `room ${u.room_id}${u.monitor ? " (monitor)" : ""}` : "no room";
  const extra = [u.category !== "normal" ? u.category : "", u.admin ? "admin" : "", u.online ? "" : "dangling"]
    .filter(Boolean);
  return `${u.user_id} ${u.name}  ${room}  ${u.language}  ${u.ip ?? "-"}${extra.length ? `  ${extra.join(" ")}` : ""}`;
}

/** Header and result lines of one round. */
export function roundLines(r: RoundView, detail = true): string[] {
  const head = `round ${r.round_id}  chart ${r.chart_id} "${r.chart_name}"  ${
    fmtTime(r.started_at)
  }  ${r.results.length} results${r.aborted.length ? `, ${r.aborted.length} aborted` : ""}`;
  if (!detail) return [head];
  const lines = [head];
  r.results.forEach((x, i) => {
    lines.push(
      `  #${i + 1} ${x.user_name ?? "?"}(${x.user_id})  ${x.score}  acc ${
        (x.accuracy * 100).toFixed(2)
      }%  ${x.perfect}/${x.good}/${x.bad}/${x.miss}  combo ${x.max_combo}${x.full_combo ? " FC" : ""}`,
    );
  });
  if (r.aborted.length) lines.push(`  aborted: ${r.aborted.join(", ")}`);
  return lines;
}

/** `abc  joined 2026-01-01 00:00:00Z  left ...`. */
export function visitLine(v: RoomVisit): string {
  return `${v.room_id}${v.monitor ? " (monitor)" : ""}  joined ${fmtTime(v.joined_at)}  ${
    v.left_at === null ? "still inside" : `left ${fmtTime(v.left_at)}`
  }`;
}

/** `key: value` lines of a plain object, nested objects indented. */
export function kvLines(obj: Readonly<Record<string, unknown>>, indent = "  "): string[] {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue;
    if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 0) {
      lines.push(`${indent}${k}:`, ...kvLines(v as Record<string, unknown>, indent + "  "));
    } else if (Array.isArray(v) && v.some((x) => x !== null && typeof x === "object")) {
      // One line per item: segment lists, pending records.
      lines.push(`${indent}${k} (${v.length}):`, ...v.map((x) => `${indent}  ${JSON.stringify(x)}`));
    } else lines.push(`${indent}${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  }
  return lines;
}

/** A latency histogram as a bar chart: `  <1ms      12  ####`. */
export function histogramLines(
  title: string,
  h: { count: number; avg_ms: number; max_ms: number; buckets: Record<string, number> },
): string[] {
  const max = Math.max(1, ...Object.values(h.buckets));
  return [
    `${title}: ${h.count} samples, avg ${h.avg_ms.toFixed(2)} ms, max ${h.max_ms.toFixed(2)} ms`,
    ...Object.entries(h.buckets).map(([label, n]) =>
      `  ${label.padEnd(9)} ${String(n).padStart(8)}  ${"#".repeat(Math.ceil((n / max) * 30))}`
    ),
  ];
}
