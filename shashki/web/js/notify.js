// Notifications inside the site: a bell with the unread count in the header of every page, kept current
// live by the lobby channel (feed.js forwards the server's `{"type": "notification", "unread": n}`), a
// panel to read them and mark them read, and the browser's own notifications when the player allowed
// them: permission is asked only from the panel's button, never on page load.

import { api, isAnonymous } from "./api.js";
import { h, s, toast } from "./dom.js";
import { subscribe } from "./feed.js";
import { t } from "./i18n.js";
import { navigate } from "./router.js";

const state = { unread: 0, items: null, open: false };
// A bell (drawn here, not a font's emoji: not every system has one).
const BELL = "M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2z";
let bell = null; // the header's button (drawn again with the header)
let panel = null;

/** The text of a notification, in the page's language. */
export function notificationText(n) {
  const d = n.data || {};
  const name = d.opponent || "?";
  if (n.kind === "yourTurn") return t("notify.yourTurn", { name });
  if (n.kind === "challenge") return t("notify.challenge", { name });
  if (n.kind === "gameEnd") {
    if (d.status === "aborted") return t("notify.gameEnd.aborted", { name });
    if (!d.winner) return t("notify.gameEnd.draw", { name });
    return t(d.winner === d.color ? "notify.gameEnd.win" : "notify.gameEnd.loss", { name });
  }
  return n.kind;
}

function target(n) {
  const d = n.data || {};
  return d.game ? `/game/${d.game}` : "/";
}

function drawBell() {
  if (!bell) return;
  const count = bell.querySelector(".count");
  // The server counts unread notifications up to 100 (notifications/service.py: UNREAD_COUNTED).
  const shown = state.unread > 99 ? "99+" : String(state.unread);
  count.textContent = state.unread ? shown : "";
  count.hidden = !state.unread;
  bell.setAttribute("aria-label", t("notify.bell", { count: shown }));
  bell.title = bell.getAttribute("aria-label");
  bell.dataset.unread = String(state.unread);
}

/** The header's bell (for a logged-in player), to put in the account area each time it is drawn. */
export function bellButton() {
  if (isAnonymous()) {
    bell = null;
    return null;
  }
  bell = h(
    "button",
    { type: "button", class: "link bell", id: "notify-bell", "aria-expanded": String(state.open), onClick: togglePanel },
    s("svg", { viewBox: "0 0 24 24", width: "20", height: "20", "aria-hidden": "true" }, s("path", { d: BELL, fill: "currentColor" })),
    h("span", { class: "count", id: "notify-count" })
  );
  drawBell();
  return bell;
}

async function refresh() {
  if (isAnonymous()) return;
  try {
    const data = await api("GET", "/api/notifications");
    state.unread = data.unread;
    state.items = data.notifications;
    state.allShown = false;
  } catch {
    return; // the count stays as it was; the next event or page draws it again
  }
  drawBell();
  if (state.open) drawPanel();
}

function togglePanel() {
  state.open = !state.open;
  if (bell) bell.setAttribute("aria-expanded", String(state.open));
  if (!state.open) {
    if (panel) panel.remove();
    panel = null;
    return;
  }
  drawPanel();
  refresh();
}

function permissionButton() {
  if (!("Notification" in window)) return null;
  if (Notification.permission === "granted") return h("p", { class: "muted", id: "notify-permission" }, t("notify.enabled"));
  if (Notification.permission === "denied") return h("p", { class: "muted", id: "notify-permission" }, t("notify.denied"));
  return h(
    "button",
    {
      type: "button",
      class: "secondary",
      id: "notify-permission",
      onClick: async () => {
        await Notification.requestPermission();
        drawPanel();
      },
    },
    t("notify.enable")
  );
}

function drawPanel() {
  if (panel) panel.remove();
  const items = state.items || [];
  panel = h(
    "section",
    { class: "notify-panel card", id: "notify-panel", "aria-label": t("notify.title") },
    h("h2", {}, t("notify.title")),
    items.length
      ? h(
          "ul",
          { class: "notifications" },
          items.map((n) =>
            h(
              "li",
              { class: n.read ? "read" : "unread", dataset: { id: String(n.id), kind: n.kind } },
              h(
                "a",
                {
                  href: target(n),
                  onClick: async (e) => {
                    e.preventDefault();
                    if (!n.read) await markRead(n.id);
                    togglePanel();
                    navigate(target(n));
                  },
                },
                notificationText(n)
              ),
              h("small", {}, ` ${new Date(n.created_at).toLocaleString()}`)
            )
          )
        )
      : h("p", { class: "muted" }, t("notify.none")),
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", id: "notify-read-all", disabled: !state.unread, onClick: () => markRead(null) }, t("notify.readAll")),
      // The older ones, a page at a time (the server sends 50 at most).
      items.length >= PAGE && !state.allShown ? h("button", { type: "button", class: "secondary", id: "notify-older", onClick: older }, t("notify.older")) : null,
      permissionButton()
    )
  );
  document.getElementById("top").after(panel);
}

const PAGE = 50; // notifications a page (the server's)

async function older() {
  const items = state.items || [];
  try {
    const data = await api("GET", `/api/notifications?before=${items[items.length - 1].id}`);
    state.items = items.concat(data.notifications);
    state.allShown = data.notifications.length < PAGE;
  } catch (e) {
    toast(e.message, "error");
    return;
  }
  drawPanel();
}

async function markRead(id) {
  try {
    const data = await api("POST", id === null ? "/api/notifications/read" : `/api/notifications/${id}/read`);
    state.unread = data.unread;
  } catch (e) {
    toast(e.message, "error");
  }
  await refresh();
}

function onEvent(message) {
  if (message.type === "notification") {
    state.unread = message.unread;
    drawBell();
    const n = message.notification;
    if (n) {
      state.items = [n, ...(state.items || []).filter((x) => x.id !== n.id)];
      tell(n);
    }
    if (state.open) drawPanel();
  } else if (message.type === "playing") {
    refresh(); // the channel's snapshot came (again): the count may have changed meanwhile
  }
}

/** A new notification: the browser's own when permitted and the page is not in view, else a toast
 * (not for the game the page shows). */
function tell(n) {
  const text = notificationText(n);
  if (document.visibilityState === "hidden" && "Notification" in window && Notification.permission === "granted") {
    const shown = new Notification("Shashki", { body: text, tag: `shashki-${n.id}` });
    shown.onclick = () => {
      window.focus();
      navigate(target(n));
    };
    return;
  }
  if (n.kind === "challenge") return; // the lobby and the notice at the top of the page show it already
  if (!location.pathname.startsWith(target(n))) toast(text);
}

let unsubscribe = null;

/** Follow the player's notifications (again after logging in or out). */
export function startNotifications() {
  if (unsubscribe) unsubscribe();
  state.unread = 0;
  state.items = null;
  state.open = false;
  if (panel) panel.remove();
  panel = null;
  if (isAnonymous()) return;
  unsubscribe = subscribe(onEvent);
  refresh();
}


