// A player's games on their profile: filters (variant, result, opponent, rated or casual) that the server
// applies (GET /api/users/{name}/games?variant=&result=&vs=&rated=), and pages of PER_PAGE games.

import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { variants } from "./geometry.js";
import { language, t } from "./i18n.js";
import { resultText, variantName } from "./widgets.js";

const PER_PAGE = 20;

function playerName(player) {
  if (!player) return "?";
  if (player.aiLevel !== undefined) return t("player.computer", { level: player.aiLevel });
  const rating = player.rating !== undefined ? ` (${player.rating})` : "";
  return `${player.user.name}${rating}`;
}

function gameRow(game, username) {
  const lower = username.toLowerCase();
  const color = game.players.white.user && game.players.white.user.id === lower ? "white" : "black";
  const status = game.status === "started" ? "started" : game.reason === "aborted" ? "aborted" : "finished";
  const outcome = status !== "finished" ? "" : !game.winner ? "draw" : game.winner === color ? "win" : "loss";
  const diff = game.players[color].ratingDiff;
  const date = new Date(game.createdAt).toLocaleDateString(language());
  return h(
    "li",
    { class: `game-row ${outcome}`, dataset: { gameId: game.id, outcome, rated: String(game.rated) } },
    h(
      "a",
      { href: `/game/${game.id}` },
      h("span", { class: "players" }, `${playerName(game.players.white)} – ${playerName(game.players.black)}`),
      h(
        "small",
        {},
        `${date} · ${variantName(game.variant_key)} · ${t(`speed.${game.speed}`)} · ${t(game.rated ? "terms.rated" : "terms.casual")}`
      ),
      h(
        "span",
        { class: "outcome" },
        status === "started"
          ? t("profile.live")
          : resultText({ status, variant: game.variant_key, winner: game.winner, reason: game.reason }),
        diff !== undefined && diff !== null ? h("b", {}, ` ${diff > 0 ? "+" : ""}${diff}`) : null
      )
    )
  );
}

function choice(name, label, options) {
  return h(
    "label",
    { class: "field" },
    h("span", {}, label),
    h("select", { name, id: `games-filter-${name}` }, options.map(([value, text]) => h("option", { value }, text)))
  );
}

/** The games card: its filter form, the list and the page buttons. Returns {el, load()}. */
export function gamesCard(username) {
  const form = h(
    "form",
    { class: "games-filter", id: "games-filter" },
    choice("variant", t("profile.filterVariant"), [["", t("profile.filterAll")], ...variants().map((v) => [v.key, variantName(v.key)])]),
    choice("result", t("profile.filterResult"), [
      ["", t("profile.filterAll")],
      ["win", t("profile.filterWin")],
      ["loss", t("profile.filterLoss")],
      ["draw", t("profile.filterDraw")],
    ]),
    choice("rated", t("profile.filterMode"), [
      ["", t("profile.filterAll")],
      ["true", t("terms.rated")],
      ["false", t("terms.casual")],
    ]),
    h(
      "label",
      { class: "field" },
      h("span", {}, t("profile.filterOpponent")),
      h("input", { name: "vs", id: "games-filter-vs", type: "search", maxlength: 30, autocomplete: "off" })
    ),
    h("button", { type: "submit", id: "games-filter-apply" }, t("profile.filterApply"))
  );
  const list = h("ul", { class: "games", id: "profile-games", "aria-live": "polite" });
  const total = h("p", { class: "muted", id: "games-total" });
  const prev = h("button", { class: "secondary", id: "games-prev", type: "button" }, t("profile.prevPage"));
  const next = h("button", { class: "secondary", id: "games-next", type: "button" }, t("profile.nextPage"));
  const where = h("span", { id: "games-page" });
  let page = 1;
  let latest = 0; // the last load asked for: an answer to an earlier one (filters changed fast) is dropped

  // The filters and the page live in the address (as lichess's /@/name/loss?page=2): Back and a reload
  // come back to the same list.
  const shown = new URLSearchParams(location.search);
  for (const field of form.elements) if (field.name && shown.has(field.name)) field.value = shown.get(field.name);
  page = Math.max(1, Number.parseInt(shown.get("page") || "1", 10) || 1);

  function saveAddress(query) {
    const kept = new URLSearchParams(query);
    kept.delete("per_page");
    if (kept.get("page") === "1") kept.delete("page");
    const text = kept.toString();
    const address = `${location.pathname}${text ? `?${text}` : ""}`;
    if (location.pathname + location.search !== address) history.replaceState(history.state, "", address);
  }

  async function load() {
    const mine = ++latest;
    const query = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE) });
    for (const [key, value] of new FormData(form)) if (String(value).trim()) query.set(key, String(value).trim());
    saveAddress(query);
    prev.disabled = next.disabled = true;
    let data;
    try {
      data = await api("GET", `/api/users/${encodeURIComponent(username)}/games?${query}`);
    } catch (e) {
      if (mine !== latest) return;
      fill(list, h("li", { class: "muted error", id: "games-error" }, e.status === 404 ? t("profile.noOpponent") : e.message));
      fill(total);
      where.textContent = "";
      return;
    }
    if (mine !== latest) return;
    fill(list, ...(data.games.length ? data.games.map((g) => gameRow(g, username)) : [h("li", { class: "muted" }, t("profile.noGames"))]));
    total.textContent = t("profile.found", { count: data.total });
    where.textContent = data.pages > 1 ? t("profile.page", { page, pages: data.pages }) : "";
    prev.hidden = next.hidden = data.pages <= 1;
    prev.disabled = page <= 1;
    next.disabled = page >= data.pages;
    list.dataset.page = String(page);
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    page = 1;
    load();
  });
  for (const select of form.querySelectorAll("select")) select.addEventListener("change", () => form.requestSubmit());
  prev.addEventListener("click", () => {
    page -= 1;
    load();
  });
  next.addEventListener("click", () => {
    page += 1;
    load();
  });
  const el = h(
    "section",
    { class: "card" },
    h("h2", {}, t("profile.games")),
    form,
    total,
    list,
    h("div", { class: "pager" }, prev, where, next)
  );
  return { el, load };
}
