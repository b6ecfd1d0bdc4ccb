// The client's entry: language, the server's lists and the session first, then the page the address names.
//
// Pages: /  lobby · /game/{id}  a game · /@/{username}  a profile · /rules[/{variant}]  rules ·
// /tv[/{variant}]  the best game in play.
// Navigation itself is router.js's; this module hands it the route table and draws the header.

import { loadSession, logout, onSessionChange, session } from "./api.js";
import { clear, fill, h, toast } from "./dom.js";
import { connect as connectFeed, drawChallengeNotice } from "./feed.js";
import { language, preferredLanguage, setLanguage, t } from "./i18n.js";
import { loadMeta } from "./meta.js";
import { render, startRouter } from "./router.js";

const ROUTES = [
  [/^\/$/, () => import("./lobby.js"), () => ({})],
  [/^\/game\/([A-Za-z0-9]+)\/?$/, () => import("./game.js"), (m) => ({ id: m[1] })],
  [/^\/@\/([^/]+)\/?$/, () => import("./profile.js"), (m) => ({ username: decodeURIComponent(m[1]) })],
  [/^\/rules\/?$/, () => import("./rules.js"), () => ({})],
  [/^\/rules\/([a-z-]+)\/?$/, () => import("./rules.js"), (m) => ({ variant: m[1] })],
  [/^\/tv\/?$/, () => import("./tv.js"), () => ({})],
  [/^\/tv\/([a-z-]+)\/?$/, () => import("./tv.js"), (m) => ({ variant: m[1] })],
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
  if (session.user) {
    const mine = `/@/${encodeURIComponent(session.user.username)}`;
    nav.append(link(mine, t("nav.profile"), here === mine));
  }
  const account = clear(document.getElementById("account"));
  if (session.user) {
    account.append(
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
        t("auth.logout")
      )
    );
  } else {
    account.append(h("a", { href: "/#login", class: "login-link" }, t("auth.login")));
  }
  document.title = `Shashki — ${t("app.tagline")}`;
}

async function boot() {
  await setLanguage(preferredLanguage(), { remember: false });
  await Promise.all([loadMeta(), loadSession()]);
  const select = document.getElementById("language");
  select.value = language();
  select.addEventListener("change", async () => {
    await setLanguage(select.value);
    render();
  });
  // Logging in or out changes what every page shows and who the live channel speaks for.
  onSessionChange(() => {
    connectFeed();
    render();
  });
  connectFeed();
  await startRouter(ROUTES, { notFound, rendered });
  document.body.dataset.ready = "1";
}

boot().catch((e) => {
  console.error(e);
  document.getElementById("view").textContent = `Shashki could not start: ${e.message}`;
});
