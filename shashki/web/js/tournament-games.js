// A tournament's games: the pairings of the round (Swiss, round robin) or the games in play and just
// played (arena), each running game with a small board of its position, and the podium at the end.
// Positions are the server's FEN; board.js draws them in its non-interactive `mini` mode.

import { api } from "./api.js";
import { Board } from "./board.js";
import { clear, fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { nameOf, playerCell, points } from "./tournament-standings.js";

const PLACES = ["first", "second", "third"];

function resultLabel(pairing) {
  if (pairing.bye) return t("tournament.bye");
  if (pairing.status !== "finished" || !pairing.result) return t("tournament.playing");
  return pairing.result.replaceAll("1/2", "½");
}

export class Games {
  constructor(tournamentId) {
    this.id = tournamentId;
    this.tour = null;
    this.round = null; // null: the current round; a number: an earlier round the viewer chose
    this.boards = new Map(); // game id -> Board, kept between updates so a board is not drawn anew
    this.title = h("h2", {}, t("tournament.pairings"));
    this.roundNav = h("div", { class: "pager", id: "round-nav" });
    this.list = h("ul", { class: "pairings", id: "pairings" });
    this.running = h("div", { class: "mini-boards", id: "running-games" });
    this.el = h("section", { class: "card", id: "tournament-games" }, this.title, this.roundNav, this.list, this.running);
  }

  update(tour) {
    this.tour = tour;
    if (this.round === null || this.round === tour.round) {
      this.round = null;
      this.draw(tour.pairings || []);
    }
    this.drawRoundNav();
  }

  async showRound(round) {
    if (!this.tour) return;
    if (round === this.tour.round) {
      this.round = null;
      this.update(this.tour);
      return;
    }
    try {
      const data = await api("GET", `/api/tournaments/${this.id}/pairings?round=${round}`);
      this.round = data.round ?? round;
      this.draw(data.pairings || []);
    } catch (e) {
      console.warn("pairings:", e);
    }
    this.drawRoundNav();
  }

  drawRoundNav() {
    clear(this.roundNav);
    const tour = this.tour;
    const arena = tour.system === "arena";
    this.title.textContent = arena ? t("tournament.arenaGames") : t("tournament.pairings");
    if (arena || !tour.round) return;
    const shown = this.round ?? tour.round;
    this.roundNav.append(
      h("button", { class: "secondary", id: "round-prev", disabled: shown <= 1, onClick: () => this.showRound(shown - 1) }, "‹"),
      h("span", { class: "page", id: "round-shown" }, t("tournament.round", { round: shown })),
      h("button", { class: "secondary", id: "round-next", disabled: shown >= tour.round, onClick: () => this.showRound(shown + 1) }, "›")
    );
  }

  draw(pairings) {
    const variant = this.tour.variant;
    if (!pairings.length) {
      fill(this.list, h("li", { class: "muted" }, t("tournament.noPairings")));
    } else {
      fill(
        this.list,
        pairings.map((p) =>
          h(
            "li",
            { class: `pairing ${p.status || ""}`, dataset: { game: p.game || "", status: p.status || "" } },
            h("span", { class: "white" }, playerCell(p.bye ? p.white || p.black : p.white)),
            p.bye ? null : h("span", { class: "versus" }, "–"),
            p.bye ? null : h("span", { class: "black" }, playerCell(p.black)),
            p.game ? h("a", { class: "result", href: `/game/${p.game}` }, resultLabel(p)) : h("span", { class: "result" }, resultLabel(p))
          )
        )
      );
    }
    // A small board for each game in play, updated in place from the latest position.
    const live = pairings.filter((p) => p.status === "started" && p.game && p.fen);
    const keep = new Set(live.map((p) => p.game));
    for (const id of [...this.boards.keys()]) if (!keep.has(id)) this.boards.delete(id);
    clear(this.running);
    for (const p of live) {
      let board = this.boards.get(p.game);
      if (!board) {
        board = Board.mini(variant, p.fen);
        this.boards.set(p.game, board);
      } else board.set({ fen: p.fen });
      board.svg.setAttribute("aria-label", `${nameOf(p.white)} – ${nameOf(p.black)}`);
      this.running.append(
        h(
          "a",
          { class: "mini-game", href: `/game/${p.game}`, dataset: { game: p.game } },
          h("span", { class: "name" }, nameOf(p.black)),
          board.el,
          h("span", { class: "name" }, nameOf(p.white))
        )
      );
    }
  }
}

/** The first three at the end: gold, silver, bronze, with their scores. */
export function podium(players) {
  return h(
    "section",
    { class: "card podium-card", id: "podium" },
    h("h2", {}, t("tournament.podium")),
    h(
      "ol",
      { class: "podium" },
      players.slice(0, 3).map((s, i) =>
        h(
          "li",
          { class: `place ${PLACES[i]}`, dataset: { user: nameOf(s.user), rank: String(s.rank ?? i + 1) } },
          h("span", { class: "medal" }, String(i + 1)),
          playerCell(s.user),
          h("strong", { class: "score" }, points(s.score)),
          h("small", {}, t("tournament.podiumLine", { games: s.games ?? 0, wins: s.wins ?? 0, performance: s.performance ?? "—" }))
        )
      )
    )
  );
}
