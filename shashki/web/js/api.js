// The server's HTTP API and live channel, as the pages use them.
//
// The session is an HttpOnly cookie the browser sends by itself; state-changing requests also carry the
// session's CSRF token (from log-in or GET /api/account). Every error is {"error": {code, message, ...}}.

import { errorText } from "./i18n.js";

export class ApiError extends Error {
  /** `message`: the server's; the error's own message is that in the player's language (errorText). */
  constructor(status, code, message, details = {}) {
    super(errorText({ code, message, ...details }));
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export const session = { user: null, csrf: null };
const sessionListeners = new Set();

export function onSessionChange(listener) {
  sessionListeners.add(listener);
  return () => sessionListeners.delete(listener);
}

function setSession(user, csrf) {
  session.user = user;
  session.csrf = csrf;
  for (const listener of sessionListeners) listener(session);
}

export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (session.csrf && method !== "GET") headers["X-CSRF-Token"] = session.csrf;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch (e) {
    throw new ApiError(0, "network", e.message || "network error");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const { code = "error", message = response.statusText, ...details } = data.error || {};
    throw new ApiError(response.status, code, message, details);
  }
  return data;
}

/** The account of the session cookie, if any (called once when the page loads). */
export async function loadSession() {
  try {
    const data = await api("GET", "/api/session"); // {user: null} before any session: no 401 logged
    setSession(data.user, data.csrf_token);
  } catch (e) {
    if (e.status !== 401 && e.status !== 403) console.warn("account:", e);
    setSession(null, null);
  }
  return session;
}

export async function login(username, password) {
  const data = await api("POST", "/api/auth/login", { username, password });
  setSession(data.user, data.csrf_token);
  return data.user;
}

export async function register(username, password) {
  await api("POST", "/api/auth/register", { username, password });
  return login(username, password);
}

/**
 * A session to play with: the one there is, or a new anonymous one (casual games only; registering or
 * logging in later keeps its games). Pages call this right before a visitor's first action.
 */
export async function ensureSession() {
  if (session.user) return session;
  const data = await api("POST", "/api/auth/anonymous", {});
  setSession(data.user, data.csrf_token);
  return session;
}

/** Whether the session is an anonymous visitor's (or there is none yet). */
export function isAnonymous() {
  return !session.user || !!session.user.anonymous;
}

export async function logout() {
  try {
    await api("POST", "/api/auth/logout", {});
  } finally {
    setSession(null, null);
  }
}

let sessionCheck = null;

/**
 * A socket was closed with 4401: the session it was opened with has ended. When the browser's session is
 * now another one (logged in or out in another tab: the cookie is shared), the page is loaded again as
 * that session's; when it is still this one, the page's own message stands (found by an audit: a
 * visitor who logged in from a second tab kept a first tab whose game no longer moved, whose actions
 * were refused, and which told them to log in).
 */
function sessionEnded() {
  if (sessionCheck) return;
  const who = (user) => (user ? `${user.id}:${user.username}` : "");
  const before = who(session.user);
  sessionCheck = loadSession()
    .then((now) => {
      if (who(now.user) !== before) location.reload();
    })
    .finally(() => {
      sessionCheck = null;
    });
}

let description = null;

/**
 * Whether the server offers an endpoint (`"/api/games/{game_id}/pdn"`), from its OpenAPI description:
 * features another part of the server adds show up in the page once the server has them.
 */
export async function endpoint(method, path) {
  if (!description) {
    description = fetch("/openapi.json")
      .then((r) => (r.ok ? r.json() : { paths: {} }))
      .catch(() => ({ paths: {} }));
  }
  const paths = (await description).paths || {};
  const normalise = (p) => p.replace(/\{[^}]+\}/g, "{}");
  const wanted = normalise(path);
  return Object.entries(paths).some(([p, ops]) => normalise(p) === wanted && method.toLowerCase() in ops);
}

/**
 * A WebSocket on `path` that reconnects after a drop. `onMessage(data)` gets each JSON message;
 * `onStatus(connected)` hears when the connection comes and goes.
 */
export class LiveSocket {
  /** `heartbeatMs`: a ping when nothing has come for that long (none while messages flow), and the
   * socket opened again when nothing at all has come for 2.5 of them. A network gone quiet (a phone's Wi-Fi dropping) closes no socket for a minute or more,
   * and the messages held meanwhile then come late, their clocks stale; a new socket starts with the
   * whole state as the server has it now (found by an audit: a page showed 20 s too much on its clock
   * after a 20 s outage, and no "offline" mark during it). */
  constructor(path, onMessage, onStatus = () => {}, { heartbeatMs = 0 } = {}) {
    this.path = path;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.closed = false;
    this.retry = 500;
    this.ws = null;
    this.queue = [];
    this.heartbeatMs = heartbeatMs;
    this.heard = 0; // when anything last came (performance.now())
    this.pingSentAt = 0;
    if (heartbeatMs) this.heartbeat = setInterval(() => this.beat(), heartbeatMs);
    this.connect();
  }

  beat() {
    if (!this.open) return;
    const quiet = performance.now() - this.heard;
    if (quiet < this.heartbeatMs - 50) return; // messages flow: the socket is alive
    if (quiet > this.heartbeatMs * 2.5) {
      const silent = this.ws;
      this.ws = null; // its late messages and its close are ignored from now on
      silent.close();
      this.onStatus(false);
      this.connect();
      return;
    }
    this.pingSentAt = performance.now();
    this.ws.send(JSON.stringify({ type: "ping", id: "ping" }));
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}${this.path}`);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 500;
      this.heard = performance.now();
      this.onStatus(true);
      for (const message of this.queue.splice(0)) ws.send(message);
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      this.heard = performance.now();
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onMessage(data);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.onStatus(false);
      // 4401/4403/4404: refused for good (not logged in, another site, no such game).
      if (event.code === 4401 && !this.closed) sessionEnded();
      if (this.closed || (event.code >= 4400 && event.code < 4500)) return;
      setTimeout(() => !this.closed && this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    };
  }

  get open() {
    return this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  send(message) {
    const text = JSON.stringify(message);
    if (this.open) this.ws.send(text);
    else this.queue.push(text);
  }

  close() {
    this.closed = true;
    clearInterval(this.heartbeat);
    if (this.ws) this.ws.close();
  }
}
