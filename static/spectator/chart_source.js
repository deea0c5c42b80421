// The room's chart for the spectator's chart layer: `/chart/{id}.json`
// fetched once and prepared (chart_plan.js) for every panel, the last few
// kept. Selecting another chart abandons the one loading; a chart that
// failed is fetched again when selected again. No DOM: `fetch` is injected
// (Deno tests give a stand-in).

import { prepareChart } from "./chart_plan.js";

/** Charts kept in memory (a room may go back and forth between a few). */
const CACHE_SIZE = 3;

/** The room's chart, fetched and prepared once for every panel. */
export class ChartSource {
  /** `url(id)`: where `/chart/{id}.json` is. */
  constructor({ url, fetch = (input, init) => globalThis.fetch(input, init) }) {
    this.url = url;
    this.fetch = fetch;
    this.id = null;
    this.state = "none";
    this.error = null;
    this.prepared = null;
    this.loading = null;
    this.abort = null;
    this.cache = new Map();
  }

  /** The chart to show is `id`: loads it (resolves when loaded or failed; a failed chart is tried again). */
  select(id) {
    if (id === null || id === undefined) return Promise.resolve();
    if (id === this.id && this.loading && this.state !== "error") return this.loading;
    this.abort?.abort();
    this.id = id;
    this.error = null;
    const hit = this.cache.get(id);
    if (hit) {
      this.cache.delete(id);
      this.cache.set(id, hit);
      this.prepared = hit;
      this.state = "ready";
      return this.loading = Promise.resolve();
    }
    this.prepared = null;
    this.state = "loading";
    const ctrl = new AbortController();
    this.abort = ctrl;
    this.loading = this.#load(id, ctrl.signal).then((prep) => {
      if (this.id !== id) return;
      this.cache.set(id, prep);
      while (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value);
      this.prepared = prep;
      this.state = "ready";
    }, (error) => {
      if (this.id !== id || ctrl.signal.aborted) return;
      this.state = "error";
      this.error = error instanceof Error ? error.message : String(error);
      console.warn(`spectator: chart ${id} unavailable: ${this.error}`);
    });
    return this.loading;
  }

  async #load(id, signal) {
    const res = await this.fetch(this.url(id), { signal, credentials: "omit" });
    let body = null;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    if (!res.ok) throw new Error(body && typeof body.error === "string" ? body.error : `HTTP ${res.status}`);
    if (!body || !body.chart || !Array.isArray(body.chart.lines)) throw new Error("the server sent no chart");
    return prepareChart(body);
  }

  /** One line about the chart for the panels' corner. */
  caption() {
    if (this.state === "ready") {
      const info = this.prepared.info ?? {};
      return [info.name, info.level].filter(Boolean).join(" · ");
    }
    if (this.state === "loading") return "loading chart…";
    if (this.state === "error") return `chart unavailable: ${this.error}`;
    return "";
  }
}
