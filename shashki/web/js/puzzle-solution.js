// A puzzle's solution after the attempt: its moves in a list (the solver's marked), and the board stepped
// through them by the list, the buttons or the arrow keys. Each position comes from the analysis board's
// API (the server replays the moves from the puzzle's FEN): the page computes no rules.

import { api } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";

export class SolutionView {
  /** `getBoard()`: the trainer's board; `getPuzzle()`: the puzzle shown. */
  constructor({ getBoard, getPuzzle }) {
    this.getBoard = getBoard;
    this.getPuzzle = getPuzzle;
    this.moves = [];
    this.positions = new Map(); // ply -> the server's position after it (with last_move)
    this.ply = 0;
    this.list = h("ol", { class: "puzzle-solution-moves", id: "puzzle-solution" });
    this.nav = h("div", { class: "nav-buttons" });
    for (const [name, label, step] of [["first", "«", () => 0], ["prev", "‹", () => this.ply - 1], ["next", "›", () => this.ply + 1], ["last", "»", () => this.moves.length]]) {
      const title = t(`game.nav.${name}`);
      this.nav.append(h("button", { class: "secondary", dataset: { nav: name }, title, "aria-label": title, onClick: () => this.go(step()) }, label));
    }
    this.el = h("section", { class: "card puzzle-solution", hidden: true }, h("h2", {}, t("puzzle.solution")), h("div", { class: "move-list" }, this.list, this.nav));
  }

  clear() {
    this.moves = [];
    this.positions = new Map();
    this.ply = 0;
    this.list.replaceChildren();
    this.el.hidden = true;
  }

  get shown() {
    return !this.el.hidden;
  }

  /** Show the solution `moves` (from the puzzle's start; `complete` false: only its beginning) and the
   * board after its last move. */
  async show(moves, complete = true) {
    this.moves = moves;
    this.positions = new Map();
    const puzzle = this.getPuzzle();
    this.positions.set(0, { ...puzzle.position, last_move: [] });
    this.list.replaceChildren(
      ...moves.map((move, i) =>
        h(
          "li",
          {
            class: `ply ${i % 2 === 0 ? "solver" : "reply"}`,
            dataset: { ply: String(i + 1), move },
            tabindex: "0",
            onClick: () => this.go(i + 1),
            onKeydown: (e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), this.go(i + 1)),
          },
          move
        )
      )
    );
    if (!complete) this.list.append(h("li", { class: "more", id: "puzzle-solution-more" }, "…"));
    this.list.setAttribute("aria-label", t("puzzle.solution"));
    this.el.hidden = false;
    await this.go(moves.length);
  }

  async position(ply) {
    if (!this.positions.has(ply)) {
      const puzzle = this.getPuzzle();
      const body = { variant: puzzle.variant, fen: puzzle.fen, moves: this.moves.slice(0, ply), double_diagonal: !!puzzle.position.double_diagonal };
      this.positions.set(ply, await api("POST", "/api/analysis/position", body));
    }
    return this.positions.get(ply);
  }

  async go(ply) {
    ply = Math.max(0, Math.min(this.moves.length, ply));
    this.ply = ply;
    let position;
    try {
      position = await this.position(ply);
    } catch (e) {
      toast(e.message, "error");
      return;
    }
    const board = this.getBoard();
    if (this.ply !== ply || !board) return;
    board.set({ fen: position.fen, lastMove: position.last_move || [], legal: [], movable: false, arrows: [], marks: {} });
    for (const li of this.list.querySelectorAll("li.ply")) li.classList.toggle("current", Number(li.dataset.ply) === ply);
    for (const button of this.nav.children) {
      const back = button.dataset.nav === "first" || button.dataset.nav === "prev";
      button.disabled = back ? ply === 0 : ply === this.moves.length;
    }
  }

  /** The arrow keys, Home and End step through the solution while it is shown; true if handled. */
  handleKey(key) {
    if (!this.shown) return false;
    const steps = { ArrowLeft: this.ply - 1, ArrowRight: this.ply + 1, Home: 0, End: this.moves.length };
    if (!(key in steps)) return false;
    this.go(steps[key]);
    return true;
  }
}
