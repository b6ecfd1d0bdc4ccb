// The move box with completion: while the player types, the legal moves beginning with what is typed are
// listed; when only one does, it is shown whole and Tab or Enter plays it. On the opponent's turn a typed
// move becomes the premove. The moves come from the state (its legal moves); a text matching none is
// sent as typed, and the server's notation parser decides (its refusal is shown under the box).

import { fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { completions, normalise } from "./move-match.js";

export class MoveBox {
  /**
   * `ctx`: the game page's shared state; `actions`: the page's Actions (its move box and `sendMove`);
   * `premoves`: the page's Premoves (a move typed on the opponent's turn becomes the premove).
   */
  constructor(ctx, actions, premoves) {
    this.ctx = ctx;
    this.actions = actions;
    this.premoves = premoves;
    this.input = actions.input;
    this.list = h("p", { class: "move-candidates", id: "move-candidates", "aria-live": "polite" });
    this.input.setAttribute("aria-describedby", "move-candidates");
    actions.form.append(this.list);
    actions.onTyped = (text) => this.submit(text);
    this.input.addEventListener("input", () => this.suggest());
    this.input.addEventListener("keydown", (e) => {
      if (e.key !== "Tab" || e.shiftKey || !this.input.value.trim()) return;
      const only = this.unique();
      if (!only) return;
      e.preventDefault();
      this.play(only);
    });
  }

  /** The legal moves the box may complete to: the player's, on their turn. */
  legal() {
    const { game, myColor } = this.ctx;
    return game && myColor && this.ctx.isLive() && game.side_to_move === myColor ? game.legal_moves : [];
  }

  /** The one move what is typed can only mean, or null. */
  unique() {
    const typed = this.input.value.trim();
    const found = completions(typed, this.legal());
    if (found.length === 1) return found[0];
    return found.find((m) => normalise(m.move) === normalise(typed)) || null;
  }

  suggest() {
    const typed = this.input.value.trim();
    const found = typed ? completions(typed, this.legal()) : [];
    if (!typed || !found.length) fill(this.list);
    else if (found.length === 1) fill(this.list, t("play.typed.unique", { move: found[0].move }));
    else {
      fill(
        this.list,
        t("play.typed.candidates"),
        " ",
        found.map((m, i) => [i ? ", " : "", h("span", { class: "candidate", dataset: { move: m.move } }, m.move)])
      );
    }
  }

  play(move) {
    this.actions.sendMove(move.move);
    this.input.value = "";
    this.suggest();
  }

  /** Enter in the box: the one move meant, else the text as typed; a premove on the opponent's turn. */
  submit(text) {
    const { game, myColor } = this.ctx;
    if (myColor && this.ctx.isLive() && game.side_to_move !== myColor) {
      if (this.premoves.fromText(text)) this.input.value = "";
      return;
    }
    const meant = this.unique();
    this.actions.sendMove(meant ? meant.move : text);
    this.suggest();
  }
}
