/**
 * What one round may store of one player's touches and judges (issue 14
 * "Hostile clients": one player in a watched room wrote 28 MB in 10 s and
 * filled the disk). Each player has a budget of stored bytes per round
 * (wire payloads with their 4-byte `.phirarec` length prefixes, issue 15)
 * (`round_telemetry_max_mb`, both kinds together); an event that does not
 * fit is dropped, and so is everything the player sends later in that
 * round. Drops are counted (`runtime persistence`, `telemetry`) and each
 * capped player-round is reported once.
 *
 * The default (16 MB) is several times what a real client sends in a long
 * round: the official client sends touch frames at most at 20 Hz per finger
 * and one judge event per note (protocol.md §4), about 4 MB of JSON -- about
 * 1 MB of wire bytes -- in a ten-minute round with ten fingers down throughout. This bounds what a round can put
 * on the disk; how fast a session may send is the wire side's limit.
 *
 * Work per event is two map lookups; what is kept is one entry per player
 * in a round in progress, forgotten when the round completes or its room
 * closes.
 *
 * @module
 */

/** Default budget: stored bytes per player and round. */
export const ROUND_TELEMETRY_MAX_BYTES = 16 * 1024 * 1024;

/** A player-round that reached its budget. */
export interface CappedRound {
  readonly room: string;
  readonly round: string | null;
  readonly user: number;
  readonly maxBytes: number;
}

/** Counters of the cap. */
export interface TelemetryCapCounters {
  /** Touch frames and judge events dropped. */
  dropped_items: number;
  /** Bytes they would have taken. */
  dropped_bytes: number;
  /** Player-rounds that reached the budget. */
  capped_rounds: number;
}

interface Round {
  readonly room: string;
  /** Bytes stored per player; -1 once the player is capped. */
  readonly users: Map<number, number>;
}

/** The per-player, per-round budget; see the module doc. */
export class RoundTelemetryCap {
  readonly maxBytes: number;
  readonly counters: TelemetryCapCounters = { dropped_items: 0, dropped_bytes: 0, capped_rounds: 0 };
  readonly #onCapped: (capped: CappedRound) => void;
  /** Rounds in progress (a round-less event counts under its room). */
  readonly #rounds = new Map<string, Round>();
  readonly #byRoom = new Map<string, Set<string>>();

  constructor(maxBytes = ROUND_TELEMETRY_MAX_BYTES, onCapped: (capped: CappedRound) => void = () => {}) {
    this.maxBytes = maxBytes;
    this.#onCapped = onCapped;
  }

  /** Player-rounds being tracked. */
  get tracked(): number {
    let n = 0;
    for (const r of this.#rounds.values()) n += r.users.size;
    return n;
  }

  /** True when an event of `items` items and `bytes` stored bytes fits the player's budget (and charges it). */
  admit(room: string, round: string | null, user: number, items: number, bytes: number): boolean {
    const key = round ?? `room:${room}`;
    let r = this.#rounds.get(key);
    if (!r) {
      this.#rounds.set(key, r = { room, users: new Map() });
      let keys = this.#byRoom.get(room);
      if (!keys) this.#byRoom.set(room, keys = new Set());
      keys.add(key);
    }
    const used = r.users.get(user) ?? 0;
    if (used >= 0 && used + bytes <= this.maxBytes) {
      r.users.set(user, used + bytes);
      return true;
    }
    this.counters.dropped_items += items;
    this.counters.dropped_bytes += bytes;
    if (used >= 0) {
      r.users.set(user, -1);
      this.counters.capped_rounds++;
      this.#onCapped({ room, round, user, maxBytes: this.maxBytes });
    }
    return false;
  }

  /** Forgets a completed round. */
  roundDone(round: string): void {
    const r = this.#rounds.get(round);
    if (!r) return;
    this.#rounds.delete(round);
    this.#byRoom.get(r.room)?.delete(round);
  }

  /** Forgets every round of a closed room. */
  roomGone(room: string): void {
    for (const key of this.#byRoom.get(room) ?? []) this.#rounds.delete(key);
    this.#byRoom.delete(room);
  }
}
