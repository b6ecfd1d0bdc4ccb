// The lobby's live channel, kept open on every page: open seeks, the games being played now, and for a
// logged-in player the challenges made to them and their games starting. The lobby page draws its lists from it; on any other
// page a challenge shows as a notice, and a game that starts (a seek or challenge accepted) opens.

import { api, LiveSocket, session } from "./api.js";
import { fill, h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { navigate } from "./router.js";
import { playerLabel, timeControlLabel, variantName } from "./widgets.js";

const listeners = new Set();
const LISTS = ["seeks", "challenges", "playing", "nowPlaying"];
// a challenge that is gone ("challengeSettled" is this page's own: see `settle`)
const SETTLED = ["challengeCancelled", "challengeDeclined", "challengeAccepted", "challengeSettled"];
const latest = {}; // the last snapshot of each list
// Challenges known to be settled (cancelled, declined, accepted, or refused as settled when answered). A
// settled challenge never becomes pending again, but a list read before it was settled can arrive after
// the news (a snapshot and an event cross on the socket): such a list must not bring it back.
const settled = new Set();
let socket = null;
let last = 0;

/** Hear every lobby event; the current lists are replayed at once. Returns the unsubscribe function. */
export function subscribe(listener) {
  listeners.add(listener);
  for (const message of Object.values(latest)) listener(message);
  return () => listeners.delete(listener);
}

export function resync() {
  if (socket) socket.send({ type: "resync" });
}

/** Forget a challenge for good (it was answered here, or the server said it is settled), and redraw. */
export function settle(id) {
  dispatch({ type: "challengeSettled", id });
}

function withoutSettled(message) {
  if (message.type === "challenges") {
    const open = (x) => !settled.has(x.id);
    return { ...message, in: (message.in || []).filter(open), out: (message.out || []).filter(open) };
  }
  return message;
}

function dispatch(message) {
  if (message.n !== undefined) {
    if (last && message.n !== last + 1) resync(); // a gap: ask for the lists again
    last = message.n;
  }
  if (SETTLED.includes(message.type)) settled.add(message.id);
  if (message.type === "challenge" && settled.has(message.challenge.id)) return;
  message = withoutSettled(message);
  if (LISTS.includes(message.type)) latest[message.type] = message;
  if (message.type === "challenge" && latest.challenges) {
    const c = message.challenge;
    latest.challenges = { ...latest.challenges, in: [...latest.challenges.in.filter((x) => x.id !== c.id), c] };
  }
  if (SETTLED.includes(message.type) && latest.challenges) {
    const keep = (x) => x.id !== message.id;
    latest.challenges = { ...latest.challenges, in: latest.challenges.in.filter(keep), out: latest.challenges.out.filter(keep) };
  }
  for (const listener of listeners) listener(message);
  globalNotice(message);
}

/** (Re)connect with the session as it is now: call after logging in or out. */
export function connect() {
  if (socket) socket.close();
  for (const key of Object.keys(latest)) delete latest[key];
  last = 0;
  socket = new LiveSocket("/ws/lobby", dispatch, (connected) => {
    if (connected) last = 0;
    else {
      // Until the lists come again, what is shown may be stale and new games would go unannounced.
      for (const key of Object.keys(latest)) delete latest[key];
      for (const listener of listeners) listener({ type: "offline" });
    }
    document.body.classList.toggle("offline", !connected);
  });
}

// -- outside the lobby ------------------------------------------------------------------------------

function onLobby() {
  return location.pathname === "/";
}

function globalNotice(message) {
  if (message.type === "gameStart") {
    const id = message.game.id;
    // A simul's games start all at once: its page shows them as boards (and sends each player to theirs),
    // so the host stays there rather than being taken to each game in turn.
    if (message.game.simul && location.pathname === `/simul/${message.game.simul}`) return;
    if (!location.pathname.startsWith(`/game/${id}`)) navigate(`/game/${id}`);
    return;
  }
  if (message.type === "followingStarted") {
    toast(t("social.startedGame", { name: message.user.username }));
    return;
  }
  if (message.type === "challengeDeclined") {
    toast(t("lobby.declined", { reason: t(`decline.${message.reason}`) }), "error");
    return;
  }
  if (message.type === "challenge" || message.type === "challenges" || SETTLED.includes(message.type)) {
    drawChallengeNotice();
  }
}

/** Challenges made to the player, shown at the top of every page but the lobby (which lists them). */
export function drawChallengeNotice() {
  const notice = document.getElementById("notice");
  if (!notice) return;
  const incoming = (latest.challenges && latest.challenges.in) || [];
  if (onLobby() || !session.user || !incoming.length) {
    notice.hidden = true;
    return;
  }
  const c = incoming[incoming.length - 1];
  const answer = (action) => async () => {
    try {
      const data = await api("POST", `/api/challenges/${c.id}/${action}`, action === "decline" ? { reason: "generic" } : undefined);
      settle(c.id);
      if (data.game) navigate(`/game/${data.game.id}`);
    } catch (e) {
      toast(e.message, "error");
      if (e.code === "challenge_settled" || e.status === 404) settle(c.id); // gone: show the next one, if any
    }
  };
  fill(
    notice,
    h("span", {}, t("lobby.challengedBy", { name: playerLabel(c.challenger) }), ` — ${variantName(c.variant)} · ${timeControlLabel(c.time_control, c.days)}`),
    h("button", { id: "notice-accept", onClick: answer("accept") }, t("lobby.accept")),
    h("button", { class: "secondary", id: "notice-decline", onClick: answer("decline") }, t("lobby.decline"))
  );
  notice.dataset.challengeId = c.id;
  notice.hidden = false;
}
