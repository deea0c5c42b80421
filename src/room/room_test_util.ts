/**
 * Shared fixtures for the room machine's unit tests.
 *
 * @module
 */

import type { RecordData, ServerCommand } from "../protocol/mod.ts";
import { SeededRandom } from "../util/random.ts";
import type { Member, RoomCtx, RoomEffect, Transition } from "./types.ts";

/** Members used throughout the tests. */
export const A: Member = { id: 1, name: "A", monitor: false };
export const B: Member = { id: 2, name: "B", monitor: false };
export const C: Member = { id: 3, name: "C", monitor: false };
export const M: Member = { id: 9, name: "M", monitor: true };

/** A deterministic context at time `now`. */
export function makeCtx(now = 1000, seed = 1): RoomCtx & { at(now: number): RoomCtx } {
  let n = 0;
  const base = {
    random: new SeededRandom(seed),
    newUuid: () => `uuid-${++n}`,
    chatHistoryLimit: 3,
    playHistoryLimit: 2,
    timing: { readyCountdownSecs: 60, playingOffsetSecs: 60, fallbackDurationSecs: 10000, progressIntervalSecs: 30 },
  };
  return { ...base, now, at: (t: number) => ({ ...base, now: t }) };
}

function describeCmd(cmd: ServerCommand): string {
  switch (cmd.type) {
    case "Message": {
      const { type, ...rest } = cmd.message;
      return `Message.${type}${Object.keys(rest).length ? JSON.stringify(rest) : ""}`;
    }
    case "ChangeState":
      return `ChangeState(${cmd.state.type}${cmd.state.type === "SelectChart" ? `:${cmd.state.chart}` : ""})`;
    case "ChangeHost":
      return `ChangeHost(${cmd.is_host})`;
    case "OnJoinRoom":
      return `OnJoinRoom(${cmd.user.id})`;
    default:
      return cmd.type;
  }
}

/** Renders wire-visible effects: `<to> <description>`, texts and the reply. */
export function wire(t: Transition): string[] {
  return t.effects.flatMap((e: RoomEffect) => {
    if (e.t === "send") return [`${e.to.join(",")} ${describeCmd(e.cmd)}`];
    if (e.t === "reply") return [e.result.ok ? "reply Ok" : `reply Err(${e.result.error.key})`];
    if (e.t === "text") return [`${e.to.join(",")} text(${e.text.key})`];
    return [];
  });
}

/** The kinds of events a transition publishes, in order. */
export function events(t: Transition): string[] {
  return t.effects.flatMap((e) => (e.t === "event" ? [e.event.kind] : []));
}

/** A record of `player`. */
export function record(player: number, score = 900000): RecordData {
  return {
    id: player * 1000 + 1,
    player,
    score,
    perfect: 10,
    good: 1,
    bad: 0,
    miss: 0,
    max_combo: 11,
    accuracy: 0.99,
    full_combo: true,
    std: 0,
    std_score: 0,
  };
}
