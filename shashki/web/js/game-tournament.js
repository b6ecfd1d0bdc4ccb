// What a game page shows when the game belongs to a tournament (the game's `tournament` is its id):
// a link back to the tournament, and in an arena the "Berserk" button — a player may halve their own
// clock before their first move for one more point if they win (issue 13, point 1, as on lidraughts).
// The server decides whether berserk is still allowed; the button is only offered while it can be.
// A player of the tournament whose game has ended listens to the tournament's channel, so that the next
// pairing (an arena's next game, a Swiss's next round) opens at once, as on the tournament's page.

import { api, LiveSocket } from "./api.js";
import { fill, h, toast } from "./dom.js";
import { variant } from "./geometry.js";
import { t } from "./i18n.js";
import { navigate } from "./router.js";
import { currentGame } from "./tournament-widgets.js";
import { act } from "./widgets.js";

export class TournamentBox {
  /** `ctx`: the game page's shared state (game, myColor, isLive). Put `el` on the page; call draw(). */
  constructor(ctx) {
    this.ctx = ctx;
    this.el = h("div", { class: "game-tournament", id: "game-tournament", hidden: true });
    this.tour = null; // {id, name, system} once fetched
    this.loading = null;
    this.berserked = false;
    this.socket = null; // the tournament's channel, once the player's game is over
  }

  /** Leave the page: close the tournament's channel if it was opened. */
  stop() {
    if (this.socket) this.socket.close();
    this.socket = null;
  }

  listenForNextPairing(id) {
    if (this.socket || !this.ctx.myColor || this.ctx.isLive() || this.tour.status === "finished") return;
    // The pairing may come before the channel opens: the tournament it sends first names the new game too.
    const next = (game) => game && game !== this.ctx.game.id && navigate(`/game/${game}`);
    this.socket = new LiveSocket(`/ws/tournaments/${id}`, (message) => {
      if (message.type === "paired") next(message.game);
      else if (message.type === "tournament") next(currentGame(message.tournament, this.ctx.me && this.ctx.me.username));
    });
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
          t("tournament.berserk")
        )
      : null;
    this.listenForNextPairing(id);
    const back = h("a", { href: `/tournament/${id}`, id: "back-to-tournament" }, t("tournament.back"), this.tour.name ? `: ${this.tour.name}` : "");
    fill(this.el, back, berserk);
  }
}
