// A tournament's standings: rank, player, rating, score, the sheet of recent results (an arena's streak
// marked with a flame, as on lidraughts), games, performance, and the tie-breaks of a Swiss or round robin
// (Buchholz, Buchholz cut 1, Sonneborn-Berger, wins: issue 13, point 2). Paged, 20 players a page, as the
// server pages them; the first page comes with every update of the tournament, the others are fetched.
// On a narrow screen the table scrolls sideways inside its card (style.css: .table-scroll).

import { api } from "./api.js";
import { clear, fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { flame } from "./tournament-widgets.js";

export const PAGE_SIZE = 20;
const TIEBREAKS = ["buchholz", "buchholz_cut1", "sonneborn_berger", "wins"];

/** A player as the server names them: a username, or an object with one. */
export function nameOf(player) {
  if (!player) return "?";
  return typeof player === "string" ? player : player.username || player.name || "?";
}

export function playerCell(player) {
  const name = nameOf(player);
  return h("a", { class: "player", href: `/@/${encodeURIComponent(name)}` }, name);
}

/** A number as a score is written: 2.5 → "2½". */
export function points(value) {
  if (value === null || value === undefined) return "";
  const whole = Math.floor(value);
  if (value - whole === 0.5) return whole ? `${whole}½` : "½";
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/**
 * The sheet: each game's points, the latest last. In an arena a game won on a streak scores double
 * (4, or 5 with berserk), which lidraughts marks in colour; here too, with the flame on the row.
 */
function sheetCell(standing, arena) {
  const marks = Array.isArray(standing.sheet) ? standing.sheet : String(standing.sheet || "").split(/\s+/).filter(Boolean);
  return h(
    "span",
    { class: "sheet" },
    marks.map((mark) => {
      const value = Number(mark);
      const double = arena && value >= 4;
      return h("span", { class: double ? "double" : "" }, arena || Number.isNaN(value) ? String(mark) : points(value));
    })
  );
}

export class Standings {
  /** `tournamentId`: whose standings; the element to put on the page is `this.el`. */
  constructor(tournamentId) {
    this.id = tournamentId;
    this.page = 1;
    this.tour = null;
    this.fetchedAt = 0;
    this.body = h("tbody");
    this.head = h("thead");
    this.table = h("table", { class: "standings", id: "standings" }, this.head, this.body);
    this.pager = h("div", { class: "pager", id: "standings-pager" });
    this.el = h("div", { class: "standings-box" }, h("div", { class: "table-scroll" }, this.table), this.pager);
    this.pending = null;
  }

  get pages() {
    return Math.max(1, Math.ceil((this.tour?.players || 0) / PAGE_SIZE));
  }

  /** The tournament changed: the first page is in it; another page shown is fetched again (at most 1/s). */
  update(tour) {
    this.tour = tour;
    if (this.page === 1) this.draw(tour.standings || []);
    else this.refetch();
    this.drawPager();
  }

  refetch() {
    if (this.pending) return;
    const wait = Math.max(0, 1000 - (performance.now() - this.fetchedAt));
    this.pending = setTimeout(() => {
      this.pending = null;
      this.show(this.page);
    }, wait);
  }

  async show(page) {
    this.fetchedAt = performance.now();
    try {
      const data = await api("GET", `/api/tournaments/${this.id}/standings?page=${page}`);
      this.page = data.page || page;
      this.draw(data.players || []);
    } catch (e) {
      console.warn("standings:", e);
    }
    this.drawPager();
  }

  drawPager() {
    const pages = this.pages;
    clear(this.pager);
    if (pages < 2) return;
    const go = (page) => () => (page === 1 && this.tour ? ((this.page = 1), this.update(this.tour)) : this.show(page));
    this.pager.append(
      h("button", { class: "secondary", id: "standings-prev", disabled: this.page <= 1, onClick: go(this.page - 1) }, "‹"),
      h("span", { class: "page" }, t("tournament.page", { page: this.page, pages })),
      h("button", { class: "secondary", id: "standings-next", disabled: this.page >= pages, onClick: go(this.page + 1) }, "›")
    );
  }

  draw(players) {
    const arena = this.tour?.system === "arena";
    const tiebreaks = !arena;
    const columns = [
      "#",
      t("tournament.player"),
      t("tournament.rating"),
      t("tournament.score"),
      t("tournament.sheet"),
      t("tournament.games"),
      t("tournament.performance"),
      // Tie-breaks by their usual short names (BH, SB…), the full name in the header's title.
      ...(tiebreaks ? TIEBREAKS.map((key) => h("abbr", { title: t(`tournament.tiebreak.${key}`) }, t(`tournament.tiebreakShort.${key}`))) : []),
    ];
    fill(this.head, h("tr", {}, columns.map((c) => h("th", {}, c))));
    clear(this.body);
    if (!players.length) {
      this.body.append(h("tr", {}, h("td", { colspan: columns.length, class: "muted" }, t("tournament.noPlayers"))));
      return;
    }
    for (const s of players) {
      const name = nameOf(s.user);
      const flags = [];
      if (arena && s.streak) flags.push(h("span", { class: "streak" }, flame(t("tournament.onFire"))));
      if (s.paused) flags.push(h("span", { class: "flag" }, t("tournament.paused")));
      if (s.withdrawn) flags.push(h("span", { class: "flag" }, t("tournament.withdrawn")));
      const classes = ["standing"];
      if (s.withdrawn) classes.push("withdrawn");
      if (s.paused) classes.push("paused");
      const tb = s.tiebreaks || {};
      this.body.append(
        h(
          "tr",
          { class: classes.join(" "), dataset: { user: name, rank: String(s.rank), score: String(s.score) } },
          h("td", { class: "rank" }, s.rank),
          h("td", { class: "name" }, playerCell(s.user), ...flags),
          h("td", {}, s.rating ?? ""),
          h("td", { class: "score" }, h("strong", {}, points(s.score))),
          h("td", {}, sheetCell(s, arena)),
          h("td", { title: `+${s.wins ?? 0} =${s.draws ?? 0} −${s.losses ?? 0}` }, s.games ?? ""),
          h("td", {}, s.performance ?? ""),
          ...(tiebreaks ? TIEBREAKS.map((key) => h("td", {}, points(tb[key]))) : [])
        )
      );
    }
  }

  stop() {
    clearTimeout(this.pending);
  }
}
