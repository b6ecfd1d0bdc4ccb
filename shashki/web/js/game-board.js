// A game's board and move list: the live position (movable when it is the player's turn), or any earlier
// position of the game when the player steps back through the moves (list, buttons or arrow keys).
// Earlier positions come from the server's replay (/api/games/{id}/positions): the page computes no rules.

import { api } from "./api.js";
import { Board } from "./board.js";
import { clear, h, toast } from "./dom.js";
import { geometry, squaresOf } from "./geometry.js";
import { t } from "./i18n.js";

export class BoardController {
  /**
   * `ctx`: the game page's shared state (id, game, myColor, isLive). `el`: {slot, moves, nav, page}.
   * `onMove(notation)` sends a move the player entered; `canMove()` says whether one may be entered now;
   * `onHint(kind)` explains a half-entered move; `onView()` redraws the page for another ply.
   * `canPremove()` says whether a premove may be entered now, `onPremove(path)` hears of it (both optional).
   */
  constructor(ctx, el, { onMove, canMove, onHint, onView, canPremove, onPremove }) {
    this.ctx = ctx;
    this.el = el;
    this.onMove = onMove;
    this.canMove = canMove;
    this.canPremove = canPremove || (() => false);
    this.onPremove = onPremove || (() => {});
    this.onHint = onHint;
    this.onView = onView;
    this.board = null;
    this.viewPly = null; // null: the live position; a number: looking back at the position after that ply
    this.positions = null; // {fens} from /api/games/{id}/positions, for going back through the game
  }

  /** Build the board for the game's variant, the player's colour at the bottom (White for spectators). */
  setup() {
    const { game, myColor } = this.ctx;
    this.board = new Board({
      variant: game.variant,
      orientation: myColor || "white",
      interactive: true,
      onMove: (move) => this.onMove(move),
      onHint: (kind) => this.onHint(kind),
      onPremove: (path) => this.onPremove(path),
    });
    this.el.slot.append(this.board.el);
    this.drawNav();
  }

  get orientation() {
    return this.board ? this.board.orientation : "white";
  }

  flip() {
    this.board.flip();
  }

  cancel() {
    if (this.board) this.board.cancel();
  }

  /** The premove entered on the board (its squares; [] when there is none). */
  premove() {
    return this.board ? [...this.board.premove] : [];
  }

  setPremove(path) {
    if (this.board) this.board.setPremove(path);
  }

  /** Take a premove for `color` now (its move just sent), before the server's state says it is the opponent's turn. */
  allowPremove(color) {
    if (this.board && this.viewPly === null) this.board.set({ premoveColor: color });
  }

  /** Show a legal move as made until the server's state confirms it. */
  showMove(move) {
    if (this.board) this.board.showMove(move);
  }

  /** A new state came: keep the replayed positions in step, and follow the game if looking at the last ply. */
  stateChanged(next, moved) {
    if (this.positions) {
      if (this.positions.fens.length === next.ply) this.positions.fens.push(next.fen);
      else if (this.positions.fens.length !== next.ply + 1) this.positions = null;
    }
    if (moved && this.viewPly !== null && this.viewPly === next.ply - 1) this.viewPly = null;
  }

  draw() {
    this.drawBoard();
    this.drawMoves();
  }

  async drawBoard() {
    const { game, id } = this.ctx;
    const geom = geometry(game.variant);
    if (this.viewPly === null || this.viewPly >= game.ply) {
      this.viewPly = null;
      const movable = this.canMove();
      const last = game.moves.length ? squaresOf(game.moves[game.moves.length - 1], geom).map((sq) => sq.label) : [];
      const premoveColor = !movable && this.canPremove() ? this.ctx.myColor : null;
      this.board.set({ fen: game.fen, lastMove: last, legal: movable ? game.legal_moves : [], movable, premoveColor });
      this.el.page.classList.remove("history");
      return;
    }
    const ply = this.viewPly;
    try {
      // An answer fetched while a state changed the game (a takeback: another line) may hold positions
      // the game no longer has: dropped, and asked again.
      for (let tries = 0; !this.positions; tries++) {
        if (tries === 5) throw new Error(t("game.error"));
        const seq = this.ctx.game.seq;
        const positions = await api("GET", `/api/games/${id}/positions`);
        if (this.ctx.game.seq === seq && !this.positions) this.positions = positions;
      }
    } catch (e) {
      toast(e.message, "error");
      this.viewPly = null;
      return this.drawBoard();
    }
    if (this.viewPly !== ply || this.ctx.game !== game) return; // a newer state is drawn by its own call
    const last = ply > 0 ? squaresOf(game.moves[ply - 1], geom).map((sq) => sq.label) : [];
    this.board.set({ fen: this.positions.fens[ply], lastMove: last, legal: [], movable: false, premoveColor: null });
    this.el.page.classList.add("history");
  }

  drawMoves() {
    const { game } = this.ctx;
    const moves = this.el.moves;
    clear(moves);
    const current = this.viewPly === null ? game.ply : this.viewPly;
    game.moves.forEach((move, i) => {
      if (i % 2 === 0) moves.append(h("li", { class: "number" }, `${i / 2 + 1}.`));
      moves.append(
        h("li", { class: `ply ${i + 1 === current ? "current" : ""}`, dataset: { ply: i + 1 }, onClick: () => this.view(i + 1) }, move)
      );
    });
    const active = moves.querySelector(".current");
    if (active && this.viewPly === null) moves.scrollTop = moves.scrollHeight;
    for (const button of this.el.nav.children) {
      const target = button.dataset.nav;
      button.disabled =
        !game.moves.length ||
        ((target === "first" || target === "prev") && current === 0) ||
        ((target === "next" || target === "last") && current === game.ply);
    }
  }

  drawNav() {
    const here = () => this.viewPly ?? this.ctx.game.ply;
    const buttons = [
      ["first", "«", () => this.view(0)],
      ["prev", "‹", () => this.view(here() - 1)],
      ["next", "›", () => this.view(here() + 1)],
      ["last", "»", () => this.view(this.ctx.game.ply)],
    ];
    for (const [name, label, onClick] of buttons) {
      const title = t(`game.nav.${name}`);
      this.el.nav.append(h("button", { class: "secondary", dataset: { nav: name }, title, "aria-label": title, onClick }, label));
    }
  }

  /** Show the position after `ply` (the live one when it is the last). */
  view(ply) {
    const { game } = this.ctx;
    if (!game) return;
    ply = Math.max(0, Math.min(game.ply, ply));
    this.viewPly = ply === game.ply ? null : ply;
    this.board.cancel();
    this.onView();
  }

  /** The keys that step through the game, as on lichess: ← and → a move back or on, ↑ or Home the start,
   * ↓ or End the current position (and Escape, which drops a half-entered move); true if handled. */
  handleKey(key) {
    const ply = this.viewPly ?? this.ctx.game.ply;
    if (key === "ArrowLeft") this.view(ply - 1);
    else if (key === "ArrowRight") this.view(ply + 1);
    else if (key === "Home" || key === "ArrowUp") this.view(0);
    else if (key === "End" || key === "ArrowDown") this.view(this.ctx.game.ply);
    else if (key === "Escape") this.board.cancel();
    else return false;
    return true;
  }
}
