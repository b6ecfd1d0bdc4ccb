// The client's entry: language, variants and session first, then the page the address names.
//
// Pages: /  lobby · /game/{id}  a game · /@/{username}  a profile · /rules[/{variant}]  rules.
// Each page module exports mount(container, params) and returns an object with unmount().

import { loadSession, logout, onSessionChange, session } from "./api.js";
import { clear, fill, h, toast } from "./dom.js";
import { connect as connectFeed, drawChallengeNotice } from "./feed.js";
import { loadVariants } from "./geometry.js";
import { language, preferredLanguage, setLanguage, t } from "./i18n.js";

const ROUTES = [
  [/^\/$/, () => import("./lobby.js"), () => ({})],
  [/^\/game\/([A-Za-z0-9]+)\/?$/, () => import("./game.js"), (m) => ({ id: m[1] })],
  [/^\/@\/([^/]+)\/?$/, () => import("./profile.js"), (m) => ({ username: decodeURIComponent(m[1]) })],
  [/^\/rules\/?$/, () => import("./rules.js"), () => ({})],
  [/^\/rules\/([a-z-]+)\/?$/, () => import("./rules.js"), (m) => ({ variant: m[1] })],
];

let current = null;
let rendering = 0;

export function navigate(path, { replace = false } = {}) {
  if (path === location.pathname + location.search + location.hash) return; // already there
  if (replace) history.replaceState({}, "", path);
  else history.pushState({}, "", path);
  render();
}

async function render() {
  const number = ++rendering;
  const view = document.getElementById("view");
  if (current && current.unmount) current.unmount();
  current = null;
  const path = location.pathname;
  for (const [pattern, load, params] of ROUTES) {
    const m = path.match(pattern);
    if (!m) continue;
    const page = await load();
    if (number !== rendering) return; // another navigation came first
    clear(view);
    current = await page.mount(view, params(m));
    renderHeader();
    drawChallengeNotice();
    window.scrollTo(0, 0);
    return;
  }
  fill(view, h("section", { class: "card" }, h("h1", {}, t("notFound.title")), h("a", { href: "/" }, t("nav.lobby"))));
  renderHeader();
}

function renderHeader() {
  const nav = document.getElementById("nav");
  const here = location.pathname;
  const link = (href, label, active) => h("a", { href, class: active ? "active" : "" }, label);
  fill(nav, link("/", t("nav.lobby"), here === "/"), link("/rules", t("nav.rules"), here.startsWith("/rules")));
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

function interceptLinks() {
  document.addEventListener("click", (e) => {
    const a = e.target.closest("a");
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    if (a.target || a.hasAttribute("download") || a.origin !== location.origin) return;
    if (a.pathname.startsWith("/api/") || a.pathname.startsWith("/static/") || a.pathname.startsWith("/docs")) return;
    e.preventDefault();
    if (a.pathname === location.pathname && a.hash) {
      location.hash = a.hash;
      return;
    }
    navigate(a.pathname + a.search + a.hash);
  });
  window.addEventListener("popstate", render);
}

async function boot() {
  await setLanguage(preferredLanguage(), { remember: false });
  await Promise.all([loadVariants(), loadSession()]);
  const select = document.getElementById("language");
  select.value = language();
  select.addEventListener("change", async () => {
    await setLanguage(select.value);
    render();
  });
  // Logging in or out changes what every page shows and who the live channel speaks for.
  onSessionChange(() => {
    connectFeed(navigate);
    render();
  });
  connectFeed(navigate);
  interceptLinks();
  await render();
  document.body.dataset.ready = "1";
}

boot().catch((e) => {
  console.error(e);
  document.getElementById("view").textContent = `Shashki could not start: ${e.message}`;
});
