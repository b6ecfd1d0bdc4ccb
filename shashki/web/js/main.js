// The client's entry: language, the server's lists and the session first, then the page the address names.
//
// Pages: /  lobby · /game/{id}  a game · /@/{username}  a profile · /rules[/{variant}]  rules ·
// /settings  the looks (theme, board, pieces).
// /challenge/{link}  a challenge by link ("play with a friend").
// /analysis  the analysis board.
// /puzzles[/{id}]  the puzzle trainer · /puzzles/history  the player's attempts.
// /tournaments  the tournaments · /tournament/{id}  one tournament.
// /simuls  the simultaneous exhibitions · /simul/{id}  one simul.
// /tv[/{variant}]  the best game in play.
// /leaderboard[/{variant}[/{speed}]]  the best players.
// Navigation itself is router.js's; this module hands it the route table and draws the header.

import { loadSession, logout, onSessionChange, session } from "./api.js";
import { clear, fill, h, s, toast } from "./dom.js";
import { connect as connectFeed, drawChallengeNotice } from "./feed.js";
import { language, preferredLanguage, setLanguage, t } from "./i18n.js";
import { loadAccountLooks } from "./looks.js";
import { loadMeta } from "./meta.js";
import { bellButton, startNotifications } from "./notify.js";
import { loginHref, render, startRouter } from "./router.js";

// A door with an arrow leaving it: "log out", drawn (a glyph may be missing from a phone's fonts).
const LOGOUT_ICON = "M10 4H5v16h5M14 8l4 4-4 4M18 12H9";

const ROUTES = [
  [/^\/$/, () => import("./lobby.js"), () => ({})],
  [/^\/game\/([A-Za-z0-9]+)\/?$/, () => import("./game.js"), (m) => ({ id: m[1] })],
  [/^\/@\/([^/]+)\/?$/, () => import("./profile.js"), (m) => ({ username: decodeURIComponent(m[1]) })],
  [/^\/challenge\/([A-Za-z0-9_-]+)\/?$/, () => import("./challenge.js"), (m) => ({ link: m[1] })],
  [/^\/rules\/?$/, () => import("./rules.js"), () => ({})],
  [/^\/rules\/([a-z-]+)\/?$/, () => import("./rules.js"), (m) => ({ variant: m[1] })],
  [/^\/settings\/?$/, () => import("./settings.js"), () => ({})],
  [/^\/analysis\/?$/, () => import("./analysis.js"), () => ({})],
  [/^\/puzzles\/history\/?$/, () => import("./puzzle-history.js"), () => ({})],
  [/^\/puzzles(?:\/([A-Za-z0-9_-]+))?\/?$/, () => import("./puzzle.js"), (m) => ({ id: m[1] })],
  [/^\/tournaments\/?$/, () => import("./tournaments.js"), () => ({})],
  [/^\/tournament\/([A-Za-z0-9_-]+)\/?$/, () => import("./tournament.js"), (m) => ({ id: m[1] })],
  [/^\/simuls\/?$/, () => import("./simuls.js"), () => ({})],
  [/^\/simul\/([A-Za-z0-9_-]+)\/?$/, () => import("./simul.js"), (m) => ({ id: m[1] })],
  [/^\/tv\/?$/, () => import("./tv.js"), () => ({})],
  [/^\/tv\/([a-z-]+)\/?$/, () => import("./tv.js"), (m) => ({ variant: m[1] })],
  [/^\/leaderboard(?:\/([a-z-]+)(?:\/([a-z]+))?)?\/?$/, () => import("./leaderboard.js"), (m) => ({ variant: m[1], speed: m[2] })],
];

function notFound(view) {
  fill(view, h("section", { class: "card" }, h("h1", {}, t("notFound.title")), h("a", { href: "/" }, t("nav.lobby"))));
}

function rendered() {
  renderHeader();
  drawChallengeNotice();
}

function renderHeader() {
  const nav = document.getElementById("nav");
  const here = location.pathname;
  const link = (href, label, active) => h("a", { href, class: active ? "active" : "" }, label);
  fill(nav, link("/", t("nav.lobby"), here === "/"), link("/rules", t("nav.rules"), here.startsWith("/rules")));
  nav.append(link("/tv", t("tv.nav"), here.startsWith("/tv"))); // TV (tv.js)
  nav.append(link("/tournaments", t("tournament.nav"), here.startsWith("/tournament")));
  nav.append(link("/simuls", t("simul.nav"), here.startsWith("/simul")));
  nav.append(link("/analysis", t("analysis.nav"), here === "/analysis"));
  nav.append(link("/puzzles", t("puzzle.nav"), here.startsWith("/puzzles")));
  nav.append(link("/leaderboard", t("nav.leaderboard"), here.startsWith("/leaderboard")));
  const anonymous = session.user && session.user.anonymous;
  if (session.user && !anonymous) {
    const mine = `/@/${encodeURIComponent(session.user.username)}`;
    nav.append(link(mine, t("nav.profile"), here === mine));
  }
  nav.append(link("/settings", t("settings.nav"), here === "/settings"));
  setMenu(false);
  const account = clear(document.getElementById("account"));
  if (anonymous) {
    // An anonymous visitor plays at once; logging in or registering (from the lobby) keeps their games.
    account.append(
      h("span", { class: "me anonymous", title: t("anon.hint") }, t("anon.name")),
      h("a", { href: loginHref(here), class: "login-link" }, t("auth.login"))
    );
  } else if (session.user) {
    account.append(
      bellButton(), // notifications (notify.js)
      h("span", { class: "me", dataset: { username: session.user.username } }, session.user.username),
      h(
        "button",
        {
          class: "link",
          id: "logout",
          onClick: async () => {
            await logout();
            toast(t("auth.loggedOut"));
          },
        },
        // On a phone only the icon shows, the words kept as the button's name: the player's own name
        // needs the room (found by an audit: in Vietnamese it was cut to one letter).
        s(
          "svg",
          { class: "icon", viewBox: "0 0 24 24", width: "20", height: "20", "aria-hidden": "true" },
          s("path", { d: LOGOUT_ICON, fill: "none", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round" })
        ),
        h("span", { class: "label" }, t("auth.logout"))
      )
    );
  } else {
    account.append(h("a", { href: loginHref(here), class: "login-link" }, t("auth.login")));
  }
  document.title = `Shashki — ${t("app.tagline")}`;
}

/** On a phone the navigation folds behind one button (style.css shows it under 600px). */
function setMenu(open) {
  const button = document.getElementById("menu-toggle");
  button.setAttribute("aria-expanded", String(open));
  button.setAttribute("aria-label", t("settings.menu"));
  document.getElementById("language").setAttribute("aria-label", t("settings.language"));
  document.getElementById("top").classList.toggle("menu-open", open);
}

async function boot() {
  await setLanguage(preferredLanguage(), { remember: false });
  await Promise.all([loadMeta(), loadSession()]);
  await loadAccountLooks();
  const menu = document.getElementById("menu-toggle");
  menu.addEventListener("click", () => setMenu(menu.getAttribute("aria-expanded") !== "true"));
  const select = document.getElementById("language");
  select.value = language();
  select.addEventListener("change", async () => {
    await setLanguage(select.value);
    render();
  });
  // Logging in or out changes what every page shows and who the live channel speaks for.
  onSessionChange(() => {
    connectFeed();
    loadAccountLooks(); // an account's own looks replace this browser's when it logs in
    startNotifications();
    render();
  });
  connectFeed();
  startNotifications();
  await startRouter(ROUTES, { notFound, rendered });
  document.body.dataset.ready = "1";
}

boot().catch((e) => {
  console.error(e);
  document.getElementById("view").textContent = `Shashki could not start: ${e.message}`;
});
