// The lobby's "Tournaments" section: the tournaments running now and those coming, each a link to its
// page with its countdown. Fetched again whenever the lobby channel nudges ({"type": "tournaments"}:
// one was created, started or ended), so the lobby polls nothing.

import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { subscribe } from "./feed.js";
import { t } from "./i18n.js";
import { countdowns, refetcher, tournamentItem } from "./tournament-widgets.js";
import { card } from "./widgets.js";

/** The section: {el, stop()}; stop() when the lobby is left. */
export function tournamentsCard() {
  const clocks = countdowns();
  const list = h("ul", { class: "tournaments", id: "lobby-tournaments" });
  const el = card("tournaments", t("tournament.title"), list, h("p", {}, h("a", { href: "/tournaments", id: "all-tournaments" }, t("tournament.all"))));
  const load = refetcher(
    () => api("GET", "/api/tournaments"),
    (data) => {
      const items = [...(data.started || []), ...(data.created || [])];
      fill(list, items.length ? items.map((tour) => tournamentItem(tour, clocks)) : h("li", { class: "muted empty" }, t("tournament.list.none.created")));
    }
  );
  load();
  const unsubscribe = subscribe((message) => {
    if (message.type === "tournaments") load();
  });
  return {
    el,
    stop() {
      unsubscribe();
      clocks.stop();
    },
  };
}
