// Where the page's API is and how to log in to it.
//
// API base: the `api` query parameter, else the `chorus-api-base` meta tag of
// index.html (for a copy of the page hosted elsewhere), else empty — the
// server that serves the page: paths are then resolved from the page's own
// directory (`/spectator/` → `/rooms/listen`), so the page also works behind
// a reverse proxy that mounts everything under a path prefix.
//
// Two kinds of server: the monitor proxy has `/auth/login` (e-mail and
// password, answered with the proxy's session token); the game server's own
// HTTP port has no login, so the viewer gives their game access token, which
// its `/ws/live` takes directly. `detectLogin` asks `/auth/me` without a token:
// the proxy answers 401, the game server 404.

const STORE_KEY = "chorus.spectator.session";

/** The API base (no trailing slash), from the query, the meta tag, or empty for the same origin. */
export function apiBase(location = globalThis.location, doc = document) {
  const fromQuery = new URLSearchParams(location.search).get("api");
  const fromMeta = doc.querySelector('meta[name="chorus-api-base"]')?.getAttribute("content");
  const base = (fromQuery ?? fromMeta ?? "").trim();
  return base.replace(/\/+$/, "");
}

/** The absolute URL of `path` under the API base. */
export function apiUrl(base, path) {
  return new URL(base === "" ? `..${path}` : base + path, globalThis.location.href).href;
}

/** The WebSocket URL of `path` under the API base. */
export function wsUrl(base, path) {
  const url = new URL(apiUrl(base, path));
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}

/** An API error with the server's message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function call(base, path, init = {}) {
  let res;
  try {
    res = await fetch(apiUrl(base, path), { ...init, credentials: "omit" });
  } catch {
    throw new ApiError(0, "cannot reach the server");
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!res.ok) {
    throw new ApiError(res.status, body && typeof body.error === "string" ? body.error : `HTTP ${res.status}`);
  }
  return body;
}

/** `password` (monitor proxy) or `token` (game server); throws ApiError when the server cannot be reached. */
export async function detectLogin(base) {
  try {
    await call(base, "/auth/me");
    return "password";
  } catch (error) {
    if (error.status === 401) return "password";
    if (error.status === 404) return "token";
    throw error;
  }
}

/** Logs in through the proxy; resolves with its session token. */
export async function login(base, email, password) {
  const body = await call(base, "/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (!body || typeof body.token !== "string") throw new ApiError(502, "the server sent no token");
  return body.token;
}

/** The profile behind a proxy session token. */
export function profile(base, token) {
  return call(base, "/auth/me", { headers: { authorization: `Bearer ${token}` } });
}

/**
 * The stored session: `{ kind: "password" | "token", token }`. A proxy
 * session token (it holds nothing readable) is kept across visits; a game
 * access token only for this tab.
 */
export function loadSession() {
  for (const storage of [sessionStorage, localStorage]) {
    try {
      const raw = storage.getItem(STORE_KEY);
      if (raw) return JSON.parse(raw);
    } catch {
      // Unreadable: as if logged out.
    }
  }
  return null;
}

/** Stores `session`, or forgets it when null. */
export function saveSession(session) {
  for (const storage of [sessionStorage, localStorage]) storage.removeItem(STORE_KEY);
  if (!session) return;
  const storage = session.kind === "password" ? localStorage : sessionStorage;
  storage.setItem(STORE_KEY, JSON.stringify(session));
}
