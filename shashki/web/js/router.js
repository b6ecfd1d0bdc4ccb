// Navigation: which page the address shows, and moving between addresses without reloading.
//
// The route table is handed in by main.js (`startRouter`): pages are loaded on demand and import
// `navigate` from here, so no page module imports main.js and no module imports a page it could be
// imported by. Each page module exports mount(container, params) and returns an object with unmount().

let routes = [];
let hooks = { notFound: () => {}, rendered: () => {} };
let current = null;
let rendering = 0;

/** Go to `path` (pushing it on the history, or replacing the current entry) and show its page. */
/** The lobby's log-in form, coming back to this page once logged in (lobby-auth.js reads `next`): a
 * friend on a challenge's page returns to it, as lichess's log-in returns to where it was asked, and so
 * does a visitor asked to log in to join a tournament or a simul, or to rate a puzzle. */
export function loginHref(here = location.pathname) {
  return here === "/" ? "/#login" : `/?next=${encodeURIComponent(here)}#login`;
}

export function navigate(path, { replace = false } = {}) {
  if (path === location.pathname + location.search + location.hash) return; // already there
  if (replace) history.replaceState({}, "", path);
  else history.pushState({}, "", path);
  render();
}

/** Show the page of the current address again (after logging in or out, or a change of language). */
export async function render() {
  const number = ++rendering;
  const view = document.getElementById("view");
  if (current && current.unmount) current.unmount();
  current = null;
  const path = location.pathname;
  for (const [pattern, load, params] of routes) {
    const m = path.match(pattern);
    if (!m) continue;
    const page = await load();
    if (number !== rendering) return; // another navigation came first
    view.replaceChildren();
    current = await page.mount(view, params(m));
    hooks.rendered();
    window.scrollTo(0, 0);
    return;
  }
  hooks.notFound(view);
  hooks.rendered();
}

/**
 * Start routing: `table` is [[pattern, load() -> module, params(match) -> object], ...]; `notFound(view)`
 * draws the page of an unknown address and `rendered()` runs after every page is drawn (the header).
 * Links to this site's pages are followed here; the API, static files and the docs load as usual.
 */
export function startRouter(table, { notFound, rendered } = {}) {
  routes = table;
  hooks = { notFound: notFound || hooks.notFound, rendered: rendered || hooks.rendered };
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
  return render();
}
