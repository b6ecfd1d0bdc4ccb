// The player's puzzle attempts (/puzzles/history): newest first, a page at a time, each a link to its
// puzzle with whether it was solved and the rating change. An account's alone: a visitor is asked to log in.

import { api, isAnonymous, session } from "./api.js";
import { fill, h } from "./dom.js";
import { language, t } from "./i18n.js";
import { loginHref } from "./router.js";
import { loadPuzzleStyle, signed, themeName } from "./puzzle-widgets.js";
import { variantName } from "./widgets.js";

function when(at) {
  const date = new Date(typeof at === "number" && at < 1e12 ? at * 1000 : at);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString(language());
}

function attemptRow(a) {
  // Only a member's first attempt at a puzzle is rated (the server's `rated`); a retry moves nothing.
  const delta = a.rated === false || a.delta === null || a.delta === undefined ? null : signed(a.delta);
  return h(
    "li",
    { class: `puzzle-attempt ${a.solved ? "solved" : "failed"}`, dataset: { puzzle: String(a.puzzle) } },
    h("a", { href: `/puzzles/${a.puzzle}` }, t("puzzle.number", { id: a.puzzle })),
    h("span", { class: "outcome" }, t(a.solved ? "puzzle.attemptSolved" : "puzzle.attemptFailed")),
    delta ? h("span", { class: "delta" }, delta) : h("span", { class: "delta muted" }, t("puzzle.unratedShort")),
    delta && a.rating_after !== null && a.rating_after !== undefined ? h("span", { class: "muted" }, String(Math.round(a.rating_after))) : null,
    h("small", { class: "muted" }, [variantName(a.variant), (a.themes || []).map(themeName).join(", "), when(a.at)].filter(Boolean).join(" · "))
  );
}

export async function mount(container) {
  loadPuzzleStyle();
  const list = h("ol", { class: "puzzle-attempts", id: "puzzle-attempts" });
  const prev = h("button", { class: "secondary", id: "history-prev" }, t("puzzle.newer"));
  const next = h("button", { class: "secondary", id: "history-next" }, t("puzzle.older"));
  const where = h("span", { class: "muted" });
  let page = Math.max(1, Number(new URLSearchParams(location.search).get("page")) || 1);

  container.append(
    h(
      "section",
      { class: "card puzzle-history", id: "puzzle-history" },
      h("h1", {}, t("puzzle.historyTitle")),
      h("p", {}, h("a", { href: "/puzzles" }, t("puzzle.backToPuzzles"))),
      list,
      h("div", { class: "pager" }, prev, where, next)
    )
  );

  if (!session.user || isAnonymous()) {
    fill(list, h("li", { class: "muted" }, h("a", { href: loginHref() }, t("puzzle.historyLogin"))));
    prev.hidden = next.hidden = true;
    return { unmount() {} };
  }

  async function load() {
    prev.disabled = next.disabled = true;
    let data;
    try {
      data = await api("GET", `/api/puzzles/history?page=${page}`);
    } catch (e) {
      fill(list, h("li", { class: "error" }, e.message));
      return;
    }
    const attempts = data.attempts || [];
    fill(list, attempts.length ? attempts.map(attemptRow) : h("li", { class: "muted", id: "puzzle-history-empty" }, t("puzzle.historyEmpty")));
    list.dataset.page = String(page);
    where.textContent = page > 1 || data.next_page ? t("puzzle.page", { page }) : "";
    prev.hidden = next.hidden = page <= 1 && !data.next_page;
    prev.disabled = page <= 1;
    next.disabled = !data.next_page;
    const address = page > 1 ? `/puzzles/history?page=${page}` : "/puzzles/history";
    if (location.pathname + location.search !== address) history.replaceState({}, "", address);
  }
  prev.addEventListener("click", () => {
    page -= 1;
    load();
  });
  next.addEventListener("click", () => {
    page += 1;
    load();
  });
  await load();
  return { unmount() {} };
}
