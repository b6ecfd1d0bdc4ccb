// Premoves in a game in play: moves the player enters while the opponent is thinking, sent the moment
// the opponent's move arrives — if they are legal then. The server stays the judge (it validates every
// move); the page only matches what was entered against the legal moves the new state carries.
//
// - The premove: a path entered on the board (clicks, drags or the keyboard), or a move typed in the
//   move box on the opponent's turn. Played when exactly one legal move goes that way; otherwise dropped
//   with a word of why. Escape or a right click drops it before.
// - Conditional premoves: pairs "if the opponent plays X, I reply Y". When the opponent's move is one of
//   the X, its Y is played (if legal); when the opponent has moved, every pair is used up.

import { fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { movesByPath, normalise, pathOf, resolveText } from "./move-match.js";

const OTHER = { white: "black", black: "white" };

export class Premoves {
  /**
   * `ctx`: the game page's shared state (game, myColor, isLive). `board`: the page's BoardController.
   * `play(move)`: sends a legal move ({move, path, captures}) as the player's, through the one function
   * that sends moves. `isPending()`: whether a move of the player's awaits the server's answer.
   */
  constructor(ctx, board, { play, isPending }) {
    this.ctx = ctx;
    this.board = board;
    this.play = play;
    this.isPending = isPending;
    this.pairs = []; // [{theirs, mine}]: the conditional premoves
    this.hint = h("p", { class: "premove-hint", id: "premove-hint", "aria-live": "polite" });
    this.theirs = h("input", { id: "cond-theirs", autocomplete: "off", spellcheck: "false", "aria-label": t("play.conditional.theirs"), placeholder: t("play.conditional.theirs") });
    this.mine = h("input", { id: "cond-mine", autocomplete: "off", spellcheck: "false", "aria-label": t("play.conditional.mine"), placeholder: t("play.conditional.mine") });
    this.error = h("p", { class: "error", id: "cond-error", hidden: true });
    this.list = h("ul", { class: "cond-list", id: "cond-list" });
    this.panel = h(
      "details",
      { class: "conditional", id: "conditional", hidden: true },
      h("summary", {}, t("play.conditional.title")),
      h("p", { class: "muted" }, t("play.conditional.explain")),
      h(
        "form",
        { class: "cond-form", id: "cond-form", onSubmit: (e) => (e.preventDefault(), this.addPair()) },
        this.theirs,
        h("span", { "aria-hidden": "true" }, "→"),
        this.mine,
        h("button", { type: "submit", id: "cond-add" }, t("play.conditional.add"))
      ),
      this.error,
      this.list
    );
  }

  /** Whether the board takes a premove now: the player's game is on and the move is not theirs to make. */
  canPremove() {
    const { game, myColor } = this.ctx;
    return !!myColor && this.ctx.isLive() && (game.side_to_move !== myColor || this.isPending());
  }

  /** The board's premove changed (board.js `onPremove`). */
  premoveChanged(path) {
    this.say(path.length ? t("play.premove.set", { move: path.join("-") }) : "");
  }

  /** A move typed on the opponent's turn becomes the premove. */
  fromText(text) {
    const path = pathOf(text);
    if (path.length < 2) return false;
    this.board.setPremove(path);
    return true;
  }

  cancel() {
    this.board.setPremove([]);
  }

  say(text) {
    this.hint.textContent = text;
  }

  // -- the conditional premoves ---------------------------------------------------------------------

  addPair() {
    const { game } = this.ctx;
    let theirs = this.theirs.value.trim();
    const mine = this.mine.value.trim();
    this.error.hidden = true;
    if (!theirs || !mine) return;
    // On the opponent's turn their legal moves are known: the condition must be one of them.
    if (game.side_to_move !== this.ctx.myColor) {
      const found = resolveText(theirs, game.legal_moves).move;
      if (!found) {
        this.error.textContent = t("play.conditional.notLegal", { move: theirs });
        this.error.hidden = false;
        return;
      }
      theirs = found.move;
    }
    this.pairs = this.pairs.filter((p) => normalise(p.theirs) !== normalise(theirs));
    this.pairs.push({ theirs, mine });
    this.theirs.value = "";
    this.mine.value = "";
    this.drawPairs();
    this.theirs.focus();
  }

  drawPairs() {
    fill(
      this.list,
      this.pairs.map((pair, i) =>
        h(
          "li",
          { dataset: { theirs: pair.theirs, mine: pair.mine } },
          t("play.conditional.pair", { theirs: pair.theirs, mine: pair.mine }),
          " ",
          h(
            "button",
            {
              type: "button",
              class: "secondary small",
              "aria-label": t("play.conditional.remove", { theirs: pair.theirs, mine: pair.mine }),
              onClick: () => {
                this.pairs.splice(i, 1);
                this.drawPairs();
              },
            },
            "×"
          )
        )
      )
    );
  }

  /** The panel is for the players of a game in play. */
  draw() {
    const live = !!this.ctx.myColor && this.ctx.isLive();
    this.panel.hidden = !live;
    if (!live && (this.pairs.length || this.board.premove().length)) {
      this.pairs = [];
      this.drawPairs();
      this.cancel();
    }
  }

  // -- when the opponent has moved ------------------------------------------------------------------

  /** A new state came (and is drawn): if it is the opponent's move just made, play what was prepared. */
  stateChanged(previous, next) {
    const { myColor } = this.ctx;
    if (!myColor || !previous || next.status !== "started") return;
    if (next.ply < previous.ply) {
      // Moves taken back (a takeback): what was planned on the position given up no longer follows.
      this.cancel();
      if (this.pairs.length) {
        this.pairs = [];
        this.drawPairs();
      }
      return;
    }
    if (!(next.ply > previous.ply && next.side_to_move === myColor) || this.isPending()) return;
    const theirMove = next.moves[next.moves.length - 1];
    const pairs = this.pairs;
    if (pairs.length) {
      this.pairs = [];
      this.drawPairs();
      // The opponent's move as they could make it: the legal moves of the state before theirs.
      const before = previous.side_to_move === OTHER[myColor] ? previous.legal_moves : [];
      const same = (text) => {
        const found = resolveText(text, before).move;
        return found ? found.move === theirMove : normalise(text) === normalise(theirMove);
      };
      const pair = pairs.find((p) => same(p.theirs));
      if (pair) {
        const reply = resolveText(pair.mine, next.legal_moves).move;
        this.cancel();
        if (reply) {
          this.play(reply);
          this.say(t("play.conditional.played", { theirs: theirMove, mine: reply.move }));
        } else this.say(t("play.conditional.illegal", { move: pair.mine }));
        return;
      }
      this.say(t("play.conditional.dropped", { count: pairs.length }));
    }
    const path = this.board.premove();
    if (path.length < 2) return;
    const found = movesByPath(path, next.legal_moves);
    this.board.setPremove([]);
    if (found.length === 1) {
      this.play(found[0]);
      this.say("");
    } else this.say(t("play.premove.cancelled", { move: path.join("-") }));
  }
}
