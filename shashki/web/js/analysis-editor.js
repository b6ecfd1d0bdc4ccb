// The analysis board's position editor: a palette (white/black man and king, eraser), the side to move,
// clear and start position, and the FEN in and out. The pieces are placed on the page's Board by clicking
// squares; the FEN is written from them here (drawing, not rules) and checked by the server when the
// position is used (/api/analysis/position answers a bad FEN with what is wrong with it).

import { h } from "./dom.js";
import { parseFen } from "./geometry.js";
import { t } from "./i18n.js";

const PALETTE = [
  ["white-man", { color: "white", king: false }],
  ["white-king", { color: "white", king: true }],
  ["black-man", { color: "black", king: false }],
  ["black-king", { color: "black", king: true }],
  ["eraser", null],
];

/** The FEN of the pieces on `board` (labels in the variant's notation) with `toMove` to play. */
export function fenOf(board, toMove) {
  const geom = board.geom;
  const side = (color) =>
    geom.squares
      .filter((sq) => board.pieces.get(sq.label)?.color === color)
      .map((sq) => (board.pieces.get(sq.label).king ? "K" : "") + sq.label)
      .join(",");
  return `${toMove === "black" ? "B" : "W"}:W${side("white")}:B${side("black")}`;
}

export class Editor {
  /**
   * `getBoard()`: the page's Board (it is rebuilt when the variant changes); `onDone(fen)`: use the
   * position; `onStart()`: the variant's start position; `onCancel()`: back to the tree as it was.
   */
  constructor({ getBoard, onDone, onStart, onCancel }) {
    this.getBoard = getBoard;
    this.onDone = onDone;
    this.onStart = onStart;
    this.onCancel = onCancel;
    this.tool = "white-man";
    this.toMove = "white";
    this.active = false;
    this.el = h("section", { class: "card analysis-editor", id: "editor", hidden: true });
    this.clicks = (e) => this.click(e);
  }

  /** Start editing the position `fen` on the board. */
  open(fen) {
    const board = this.getBoard();
    const parsed = parseFen(fen, board.geom);
    this.toMove = parsed.toMove;
    board.set({ fen, lastMove: [], legal: [], movable: false, arrows: [] });
    this.active = true;
    this.attach(board);
    this.draw();
    this.el.hidden = false;
  }

  close() {
    this.active = false;
    this.el.hidden = true;
    if (this.board) this.board.svg.removeEventListener("click", this.clicks);
    this.board = null;
  }

  /** Listen to the board's clicks (again after the board is rebuilt for another variant). */
  attach(board) {
    if (this.board) this.board.svg.removeEventListener("click", this.clicks);
    this.board = board;
    board.svg.addEventListener("click", this.clicks);
  }

  click(e) {
    if (!this.active) return;
    const board = this.board;
    const sq = board.squareAtPoint(e.clientX, e.clientY);
    if (!sq) return;
    const piece = PALETTE.find(([name]) => name === this.tool)[1];
    const here = board.pieces.get(sq.label);
    if (!piece || (here && here.color === piece.color && here.king === piece.king)) board.pieces.delete(sq.label);
    else board.pieces.set(sq.label, { ...piece });
    board.render();
    this.fenInput.value = this.fen();
  }

  fen() {
    return fenOf(this.board, this.toMove);
  }

  draw() {
    const tools = PALETTE.map(([name]) =>
      h(
        "button",
        {
          class: `palette-tool ${name}${this.tool === name ? " active" : ""}`,
          dataset: { tool: name },
          title: t(`analysis.tool.${name}`),
          "aria-label": t(`analysis.tool.${name}`),
          "aria-pressed": this.tool === name ? "true" : "false",
          onClick: () => {
            this.tool = name;
            this.draw();
          },
        },
        h("span", { class: "swatch" })
      )
    );
    const side = h(
      "select",
      {
        id: "editor-side",
        "aria-label": t("analysis.sideToMove"),
        onChange: (e) => {
          this.toMove = e.target.value;
          this.fenInput.value = this.fen();
        },
      },
      h("option", { value: "white", selected: this.toMove === "white" }, t("analysis.whiteToMove")),
      h("option", { value: "black", selected: this.toMove === "black" }, t("analysis.blackToMove"))
    );
    this.fenInput = h("input", { id: "editor-fen", value: this.fen(), spellcheck: false, "aria-label": "FEN" });
    const loadFen = () => {
      const fen = this.fenInput.value.trim();
      if (!fen) return;
      const board = this.board;
      board.set({ fen });
      this.toMove = parseFen(fen, board.geom).toMove;
      side.value = this.toMove;
    };
    this.el.replaceChildren(
      h("h2", {}, t("analysis.editor")),
      h("div", { class: "palette", role: "toolbar", "aria-label": t("analysis.palette") }, tools),
      h("label", { class: "field" }, h("span", {}, t("analysis.sideToMove")), side),
      h(
        "div",
        { class: "row" },
        h("button", { class: "secondary", id: "editor-clear", onClick: () => this.clear() }, t("analysis.clear")),
        h("button", { class: "secondary", id: "editor-start", onClick: () => this.onStart() }, t("analysis.startPosition"))
      ),
      h(
        "label",
        { class: "field" },
        h("span", {}, "FEN"),
        h("div", { class: "row" }, this.fenInput, h("button", { class: "secondary", id: "editor-load-fen", onClick: loadFen }, t("analysis.loadFen")))
      ),
      h(
        "div",
        { class: "row" },
        h("button", { id: "editor-done", onClick: () => this.onDone(this.fenInput.value.trim() || this.fen()) }, t("analysis.editDone")),
        h("button", { class: "secondary", id: "editor-cancel", onClick: () => this.onCancel() }, t("analysis.cancel"))
      )
    );
  }

  clear() {
    this.board.pieces.clear();
    this.board.render();
    this.fenInput.value = this.fen();
  }
}
