// The board for the keyboard and screen readers: the squares form a grid (WAI-ARIA grid pattern, one
// cell per square, one row per screen row) with a roving focus — one cell is in the tab order, the arrow
// keys move it square by square as the board is seen, Enter or Space picks the square focused (a piece,
// then each square of its move, as a click does), Escape drops what was begun. Each cell is named for a
// screen reader: "c3, white man", with what the square is in the move being entered.

import { t } from "./i18n.js";

const STEPS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

export class BoardKeys {
  /** Works on `board`'s cells (the rects of its squares layer, which board.js draws as a grid). */
  constructor(board) {
    this.board = board;
    this.cursor = null; // {row, col} of the cell in the tab order, in board coordinates
    this.keyboard = false; // whether the last input was a key (the focus ring is shown only then)
    // Chromium makes an <svg> with focus listeners a tab stop of its own, where no key works: out of
    // the tab order, so that Tab goes straight to the one cell that is in it (found by an audit).
    board.svg.setAttribute("tabindex", "-1");
    board.svg.addEventListener("keydown", (e) => this.keyDown(e));
    board.svg.addEventListener("focusin", () => this.drawFocus());
    board.svg.addEventListener("focusout", () => queueMicrotask(() => this.drawFocus()));
    board.svg.addEventListener("pointerdown", () => {
      this.keyboard = false;
      this.drawFocus();
    });
  }

  cell(row, col) {
    return this.board.layers.squares.querySelector(`rect[data-row="${row}"][data-col="${col}"]`);
  }

  /** The cursor as seen on screen: (0, 0) top left. */
  screen({ row, col }) {
    const last = this.board.geom.size - 1;
    return this.board.orientation === "black" ? { row: last - row, col: last - col } : { row, col };
  }

  /** The squares were drawn again (a new board, or turned round): put the one tab stop back, and the focus
   * on the same square when a cell had it (`focused`: the board turned round with `f`). */
  squaresDrawn(focused = false) {
    if (!this.cursor) {
      // The start: the bottom left corner as the player sees the board.
      const last = this.board.geom.size - 1;
      this.cursor = this.screen({ row: last, col: 0 });
    }
    this.moveCursor(this.cursor, focused);
  }

  moveCursor({ row, col }, focus = true) {
    const previous = this.cursor && this.cell(this.cursor.row, this.cursor.col);
    if (previous) previous.setAttribute("tabindex", "-1");
    this.cursor = { row, col };
    const cell = this.cell(row, col);
    if (!cell) return;
    cell.setAttribute("tabindex", "0");
    if (focus) cell.focus();
    this.drawFocus();
  }

  keyDown(e) {
    const cell = e.target.closest && e.target.closest("rect[data-row]");
    if (!cell) return;
    this.keyboard = true;
    const here = { row: Number(cell.dataset.row), col: Number(cell.dataset.col) };
    if (e.key in STEPS) {
      // Square by square as the board is seen, whichever side is at the bottom.
      const [down, right] = STEPS[e.key];
      const size = this.board.geom.size;
      const { row, col } = this.screen(here);
      const next = { row: Math.max(0, Math.min(size - 1, row + down)), col: Math.max(0, Math.min(size - 1, col + right)) };
      this.moveCursor(this.screen(next));
    } else if (e.key === "Enter" || e.key === " ") {
      this.cursor = here;
      if (cell.dataset.square) this.board.choose(cell.dataset.square);
    } else if (e.key === "Escape") {
      this.board.cancel();
    } else return;
    // The page's own keys (stepping through the game's moves with the arrows) are for outside the board.
    e.preventDefault();
    e.stopPropagation();
  }

  /** A ring round the focused square, drawn above the pieces, while the keyboard is in use. */
  drawFocus() {
    const layer = this.board.layers.focus;
    layer.replaceChildren();
    const active = document.activeElement;
    if (!active || !this.board.svg.contains(active) || !active.dataset.row) return;
    if (!(this.keyboard || active.matches(":focus-visible"))) return; // tabbed to, or walked to with keys
    const ring = active.cloneNode(false);
    for (const name of ["role", "tabindex", "data-square", "data-row", "data-col", "aria-label"]) ring.removeAttribute(name);
    ring.setAttribute("class", "focus-ring");
    layer.append(ring);
  }

  /** After each drawing: every cell's name says its square, what stands there and its part in the move. */
  rendered(shown) {
    const board = this.board;
    const targets = new Set([...board.layers.targets.children].map((el) => el.dataset.target));
    const movers = new Set(board.movable && !board.prefix.length ? board.legal.map((m) => m.path[0]) : []);
    for (const cell of board.layers.squares.querySelectorAll("rect[data-row]")) {
      const label = cell.dataset.square;
      if (!label) {
        cell.setAttribute("aria-label", t("play.square.light"));
        continue;
      }
      const parts = [label];
      const piece = shown.get(label);
      if (piece) parts.push(t(`play.piece.${piece.color}.${piece.king ? "king" : "man"}`));
      if (movers.has(label)) parts.push(t("play.square.movable"));
      if (board.prefix.includes(label)) parts.push(t("play.square.selected"));
      if (targets.has(label)) parts.push(t("play.square.target"));
      if (board.premove.includes(label)) parts.push(t("play.square.premove"));
      cell.setAttribute("aria-label", parts.join(", "));
      cell.setAttribute("aria-selected", board.prefix.includes(label) ? "true" : "false");
    }
    this.drawFocus();
  }
}
