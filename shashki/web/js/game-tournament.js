// What a game page shows when the game belongs to a tournament (the game's `tournament` is its id):
// a link back to the tournament, and in an arena the "Berserk" button — a player may halve their own
// clock before their first move for one more point if they win (issue 13, point 1, as on lidraughts).
// The server decides whether berserk is still allowed; the button is only offered while it can be.

import { api } from "./api.js";
import { fill, h, toast } from "./dom.js";
import { variant } from "./geometry.js";
import { t } from "./i18n.js";
import { act } from "./widgets.js";

export class TournamentBox {
  /** `ctx`: the game page's shared state (game, myColor, isLive). Put `el` on the page; call draw(). */
  constructor(ctx) {
    this.ctx = ctx;
    this.el = h("div", { class: "game-tournament", id: "game-tournament", hidden: true });
    this.tour = null; // {id, name, system} once fetched
    this.loading = null;
    this.berserked = false;
  }

  /** How many moves the player has made: the first player moves on the even plies. */
  myMoves(game) {
    const first = variant(game.variant).first_player || "white";
    return this.ctx.myColor === first ? Math.ceil(game.ply / 2) : Math.floor(game.ply / 2);
  }

  canBerserk() {
    const { game, myColor } = this.ctx;
    if (!this.tour || this.tour.system !== "arena" || !myColor || !this.ctx.isLive()) return false;
    if (this.berserked || (game.berserk && game.berserk[myColor])) return false;
    return this.myMoves(game) === 0;
  }

  draw() {
    const game = this.ctx.game;
    const id = game && game.tournament;
    this.el.hidden = !id;
    if (!id) return;
    if (!this.tour || this.tour.id !== id) {
      if (!this.loading) {
        this.loading = api("GET", `/api/tournaments/${id}`)
          .then((tour) => (this.tour = tour))
          .catch(() => (this.tour = { id, name: "", system: null }))
          .finally(() => {
            this.loading = null;
            this.draw();
          });
      }
      return;
    }
    const berserk = this.canBerserk()
      ? h(
          "button",
          {
            id: "berserk",
            class: "berserk",
            title: t("tournament.berserkHelp"),
            onClick: (e) =>
              act(e.currentTarget, async () => {
                await api("POST", `/api/tournaments/${id}/berserk`, { game: game.id });
                this.berserked = true;
                toast(t("tournament.berserked"));
                this.draw();
              }),
          },
          "⚡ ",
          t("tournament.berserk")
        )
      : null;
    const back = h("a", { href: `/tournament/${id}`, id: "back-to-tournament" }, t("tournament.back"), this.tour.name ? `: ${this.tour.name}` : "");
    fill(this.el, back, berserk);
  }
}
