// One player's round as the spectator sees it from `Judges` events: judgement
// counters, combo, best combo and accuracy. Perfect and Good keep the combo;
// Bad and Miss break it. `HoldPerfect`/`HoldGood` mark a hold whose head was
// hit; the hold's own Perfect, Good or Miss follows when it ends, so they
// count as nothing here (counting both would count each hold twice).
// Accuracy follows the game: a Good is worth 65 % of a Perfect.

const GOOD_WEIGHT = 0.65;

/** Counters of one player in one round. */
export class PlayerStats {
  constructor() {
    this.reset();
  }

  /** Back to zero (a new round starts). */
  reset() {
    this.perfect = 0;
    this.good = 0;
    this.bad = 0;
    this.miss = 0;
    this.combo = 0;
    this.maxCombo = 0;
  }

  /** Notes judged so far. */
  get judged() {
    return this.perfect + this.good + this.bad + this.miss;
  }

  /** 0..1; 1 before anything was judged. */
  get accuracy() {
    const n = this.judged;
    return n === 0 ? 1 : (this.perfect + GOOD_WEIGHT * this.good) / n;
  }

  /** Counts one judgement (`Perfect`, `Good`, `Bad`, `Miss`; hold marks are ignored). */
  add(judgement) {
    switch (judgement) {
      case "Perfect":
        this.perfect++;
        break;
      case "Good":
        this.good++;
        break;
      case "Bad":
        this.bad++;
        this.combo = 0;
        return;
      case "Miss":
        this.miss++;
        this.combo = 0;
        return;
      default:
        return;
    }
    this.combo++;
    if (this.combo > this.maxCombo) this.maxCombo = this.combo;
  }
}

/** `98.76%` */
export function formatAccuracy(value) {
  return `${(Math.floor(value * 10000) / 100).toFixed(2)}%`;
}

/** `1,000,000` */
export function formatScore(value) {
  return Math.round(value).toLocaleString("en-US");
}
