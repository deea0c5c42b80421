// The room list, kept live from the room stream (`/rooms/listen`). Works with
// both servers the page can face: the monitor proxy (a `create_room` per
// existing room, then live events) and the game server's own stream (`ready`,
// an `update_room` with full data per room, then live events, `delete_room`).
// An `update_room` for a room not yet known creates it.

const STATES = new Set(["SELECTING_CHART", "WAITING_FOR_READY", "PLAYING"]);

/** Rooms by name, updated by stream events. */
export class RoomList {
  constructor() {
    /** @type {Map<string, {name: string, host: number, users: number[], lock: boolean, cycle: boolean, chart: number|null, state: string, rounds: object[]}>} */
    this.rooms = new Map();
  }

  /** Forgets everything (the stream (re)connected: a fresh snapshot follows). */
  reset() {
    this.rooms.clear();
  }

  /** Rooms sorted by name. */
  sorted() {
    return [...this.rooms.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Applies one event; returns the name of the room it changed (null when
   * nothing changed or the event is not about one room).
   */
  apply(name, data) {
    if (!data || typeof data !== "object") return null;
    const id = typeof data.room === "string" ? data.room : null;
    if (id === null) return null;
    switch (name) {
      case "create_room":
        this.rooms.set(id, fullRoom(id, data.data));
        return id;
      case "update_room": {
        const room = this.rooms.get(id);
        if (!room) {
          this.rooms.set(id, fullRoom(id, data.data));
          return id;
        }
        const d = data.data ?? {};
        for (const key of ["host", "lock", "cycle", "chart", "state", "users", "rounds"]) {
          if (d[key] !== undefined && (key !== "state" || STATES.has(d[key]))) room[key] = d[key];
        }
        return id;
      }
      case "join_room": {
        const room = this.rooms.get(id);
        if (!room) return null;
        if (!room.users.includes(data.user)) room.users.push(data.user);
        return id;
      }
      case "leave_room": {
        const room = this.rooms.get(id);
        if (!room) return null;
        room.users = room.users.filter((u) => u !== data.user);
        // A room whose last player left is gone (monitors do not keep it).
        if (room.users.length === 0) this.rooms.delete(id);
        return id;
      }
      case "delete_room":
        return this.rooms.delete(id) ? id : null;
      case "new_round": {
        const room = this.rooms.get(id);
        if (room && data.round) room.rounds.push(data.round);
        return room ? id : null;
      }
      default:
        return null;
    }
  }
}

function fullRoom(name, d = {}) {
  return {
    name,
    host: typeof d.host === "number" ? d.host : -1,
    users: Array.isArray(d.users) ? [...d.users] : [],
    lock: Boolean(d.lock),
    cycle: Boolean(d.cycle),
    chart: typeof d.chart === "number" ? d.chart : null,
    state: STATES.has(d.state) ? d.state : "SELECTING_CHART",
    rounds: Array.isArray(d.rounds) ? [...d.rounds] : [],
  };
}

const EVENT_NAMES = ["create_room", "update_room", "join_room", "leave_room", "delete_room", "new_round"];

/**
 * Follows the room stream at `url` with `EventSource`, reconnecting with
 * back-off when the server refuses (503 while it cannot reach the game
 * server) or the connection drops. `onChange(roomName | null, eventName, data)`
 * is called after each change, `onState("live" | "connecting" | "retrying")`
 * when the connection state changes.
 */
export class RoomStream {
  constructor(url, list, { onChange, onState }) {
    this.url = url;
    this.list = list;
    this.onChange = onChange;
    this.onState = onState;
    this.source = null;
    this.timer = null;
    this.backoff = 1000;
    this.stopped = false;
  }

  start() {
    this.stopped = false;
    this.#open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.source?.close();
    this.source = null;
  }

  #open() {
    if (this.stopped) return;
    this.onState("connecting");
    const source = new EventSource(this.url);
    this.source = source;
    source.onopen = () => {
      // A (re)connected stream starts with the whole picture again.
      this.backoff = 1000;
      this.list.reset();
      this.onState("live");
      this.onChange(null, "reset", null);
    };
    source.addEventListener("ready", () => {
      this.list.reset();
      this.onChange(null, "reset", null);
    });
    source.addEventListener("stream_lagged", () => {
      // Events were lost: start over from a fresh snapshot.
      source.close();
      this.#retry(0);
    });
    for (const name of EVENT_NAMES) {
      source.addEventListener(name, (e) => {
        let data;
        try {
          data = JSON.parse(e.data);
        } catch {
          return;
        }
        this.onChange(this.list.apply(name, data), name, data);
      });
    }
    source.onerror = () => {
      // EventSource retries by itself after a dropped connection, not after an error status.
      if (source.readyState === EventSource.CLOSED) this.#retry(this.backoff);
      else this.onState("connecting");
    };
  }

  #retry(delay) {
    this.source?.close();
    this.source = null;
    if (this.stopped) return;
    this.onState("retrying");
    this.timer = setTimeout(() => this.#open(), delay);
    this.backoff = Math.min(15000, this.backoff * 2);
  }
}
