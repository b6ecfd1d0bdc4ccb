// What a screen reader is told while a game goes on, in a polite live region: each move the opponent
// makes (for a spectator, every move), with the pieces it took, whose turn it is then, and the result.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { resultText } from "./widgets.js";

const OTHER = { white: "black", black: "white" };

export class Announcer {
  /** `ctx`: the game page's shared state (myColor). */
  constructor(ctx) {
    this.ctx = ctx;
    this.el = h("p", { class: "visually-hidden", id: "announce", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  }

  /** A new state came after `previous`: say the moves it adds (not the player's own) and the result. */
  stateChanged(previous, next) {
    if (!previous) return;
    const { myColor } = this.ctx;
    const parts = [];
    for (let ply = previous.ply; ply < next.ply; ply++) {
      // The last move was made by the side not to move now; the ones before alternate.
      const mover = (next.ply - 1 - ply) % 2 === 0 ? OTHER[next.side_to_move] : next.side_to_move;
      if (mover === myColor) continue;
      const move = next.moves[ply];
      parts.push(t("play.announce.move", { player: t(`color.${mover}`), move }));
      // The squares taken are known for the move made from the position the page last had.
      const known = ply === previous.ply ? previous.legal_moves.find((m) => m.move === move) : null;
      if (known && known.captures.length) parts.push(t("play.announce.captures", { squares: known.captures.join(", ") }));
    }
    const finished = previous.status === "started" && next.status !== "started";
    if (finished) {
      parts.push(resultText(next));
      if (myColor && next.winner) parts.push(t(next.winner === myColor ? "result.youWin" : "result.youLose"));
    } else if (parts.length && myColor && next.status === "started" && next.side_to_move === myColor) {
      parts.push(t("game.yourTurn"));
    }
    if (parts.length) this.say(parts.join(" "));
  }

  say(text) {
    this.el.textContent = text;
  }
}
