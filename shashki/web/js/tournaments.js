// /tournaments: the tournaments coming, running and lately finished, and the form to create one.
//
// The list is the server's (GET /api/tournaments); it is fetched again when the lobby channel says the
// tournaments changed (its {"type": "tournaments"} nudge: one was created, started or ended).

import { api, session } from "./api.js";
import { fill, h } from "./dom.js";
import { subscribe } from "./feed.js";
import { t } from "./i18n.js";
import { loginHref } from "./router.js";
import { createForm } from "./tournament-form.js";
import { countdowns, refetcher, tournamentItem } from "./tournament-widgets.js";
import { card } from "./widgets.js";

const GROUPS = ["started", "created", "finished"];

export async function mount(container) {
  const clocks = countdowns();
  const lists = {};
  const boxes = GROUPS.map((group) => {
    lists[group] = h("ul", { class: "tournaments", id: `tournaments-${group}` });
    return card(`tournaments-${group}-card`, t(`tournament.list.${group}`), lists[group]);
  });
  const create = session.user
    ? card("tournament-create-card", t("tournament.createTitle"), createForm())
    : card("tournament-create-card", t("tournament.createTitle"), h("p", { class: "muted" }, h("a", { href: loginHref() }, t("tournament.loginToCreate"))));

  container.append(
    h("div", { class: "tournaments-page" }, h("div", { class: "column" }, h("h1", {}, t("tournament.title")), ...boxes), h("div", { class: "column" }, create))
  );

  const load = refetcher(
    () => api("GET", "/api/tournaments"),
    (data) => {
      for (const group of GROUPS) {
        const items = data[group] || [];
        const none = h("li", { class: "muted empty" }, t(`tournament.list.none.${group}`));
        fill(lists[group], items.length ? items.map((tour) => tournamentItem(tour, clocks)) : none);
      }
    }
  );
  await load();
  const unsubscribe = subscribe((message) => {
    if (message.type === "tournaments") load();
  });

  return {
    unmount() {
      unsubscribe();
      clocks.stop();
    },
  };
}
