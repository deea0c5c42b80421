/**
 * The localized round ranking sent as system chat lines before `GameEnd`
 * (spec 3 §3.1 settlement). Players with a result are ranked by score, then
 * accuracy; aborted players follow as DNF.
 *
 * @module
 */

import type { MessageArgs, MessageKey } from "../l10n/mod.ts";
import type { Room, RoundRecord } from "./types.ts";

/** One line to render per recipient. */
export interface RankingLine {
  readonly key: MessageKey;
  readonly args: MessageArgs;
}

/** The ranking of a settled round: title, one line per player, summary. */
export function rankingLines(room: Room, round: RoundRecord): RankingLine[] {
  const names = new Map([...room.players, ...room.monitors].map((m) => [m.id, m.name]));
  const name = (id: number) => names.get(id) ?? `#${id}`;
  const lines: RankingLine[] = [{ key: "result-title", args: { chart: round.chart.name || `#${round.chart.id}` } }];
  const ranked = [...round.records].sort((a, b) => b.score - a.score || b.accuracy - a.accuracy);
  ranked.forEach((r, i) => {
    lines.push({
      key: r.full_combo ? "result-line-fc" : "result-line",
      args: {
        rank: i + 1,
        name: name(r.player),
        score: r.score,
        accuracy: (r.accuracy * 100).toFixed(2),
        perfect: r.perfect,
        good: r.good,
        bad: r.bad,
        miss: r.miss,
        combo: r.max_combo,
      },
    });
  });
  for (const id of round.aborted) {
    if (round.records.some((r) => r.player === id)) continue;
    lines.push({ key: "result-line-dnf", args: { name: name(id) } });
  }
  lines.push({ key: "result-summary", args: { passed: ranked.length, total: ranked.length + round.aborted.length } });
  return lines;
}
